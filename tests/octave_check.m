% tests/octave_check.m - matrix products in Octave, single and double
% precision, each checked against a reference of its own. Octave hands every
% product of two single matrices (neither one a vector) to the Fortran
% sgemm_ of the BLAS behind libblas.so.3, and of two double ones (Octave's
% default type) to dgemm_; run under the preload, every one must be right and
% intercepted. Prints 'products single: N' and 'products double: N' (the
% products that reach sgemm_ and dgemm_) and a PASS or FAIL line; exits 1 on
% failure.
%
%   octave-cli octave_check.m [--save FILE | --against FILE]
%
% --save keeps the results in FILE; --against compares them with a FILE
% saved by another run (the plain one) and prints 'identical to FILE: I of N'.
args = argv();
mode = ''; file = '';
if numel(args) == 2 && any(strcmp(args{1}, {'--save', '--against'}))
  mode = args{1}; file = args{2};
elseif numel(args) ~= 0
  error('usage: octave_check.m [--save FILE | --against FILE]');
end

% The exact product in double and the sum of |a||b| over k, built from
% element-wise products (no BLAS call: under the preload the reference must
% not come from the library it checks).
function [ref, mag] = reference(A, B)
  A = double(A); B = double(B);
  ref = zeros(rows(A), columns(B)); mag = ref;
  for p = 1:columns(A)
    t = A(:, p) .* B(p, :);
    ref += t;
    mag += abs(t);
  end
end

randn('state', 7);
% Each case: name, the product, its reference, the sum of magnitudes, k,
% and whether it reaches ?gemm_. The operands are always two different
% matrices (A*A' would go to ?syrk_); At and Bt hold A and B transposed, so
% that the four products of one size share one reference.
cases = {};
for cls = {'single', 'double'}
  cls = cls{1};
  r = @(m, n) cast(randn(m, n), cls);
  for s = [64 64 64; 300 257 513; 600 600 600; 1024 512 700]'   % m, k, n
    m = s(1); k = s(2); n = s(3);
    A = r(m, k); B = r(k, n); At = A.'; Bt = B.';
    [ref, mag] = reference(A, B);
    tag = sprintf('%s %dx%dx%d', cls, m, k, n);
    cases(end+1, :) = {[tag ' A*B'],     A * B,     ref, mag, k, true};
    cases(end+1, :) = {[tag ' A''*B'],   At' * B,   ref, mag, k, true};   % ?gemm_ TN
    cases(end+1, :) = {[tag ' A*B'''],   A * Bt',   ref, mag, k, true};   % ?gemm_ NT
    cases(end+1, :) = {[tag ' A''*B'''], At' * Bt', ref, mag, k, true};   % ?gemm_ TT
  end
  % Skinny, matrix-vector-like: a tall matrix times three columns, and three
  % rows times it.
  A = r(4000, 700); X = r(700, 3); Y = r(3, 4000);
  [ref, mag] = reference(A, X);
  cases(end+1, :) = {[cls ' skinny 4000x700x3'], A * X, ref, mag, 700, true};
  [ref, mag] = reference(Y, A);
  cases(end+1, :) = {[cls ' skinny 3x4000x700'], Y * A, ref, mag, 4000, true};
  % A vector goes to ?gemv_, which the library does not export: checked, not
  % counted in 'products'.
  A = r(333, 444); v = r(444, 1);
  [ref, mag] = reference(A, v);
  cases(end+1, :) = {[cls ' matrix*vector 333x444x1'], A * v, ref, mag, 444, false};
end
% A double operand is converted, the product stays single.
A = single(randn(333, 444)); D = randn(444, 555);
[ref, mag] = reference(A, single(D));
cases(end+1, :) = {'single A*D 333x444x555, D double', A * D, ref, mag, 444, true};

bad = 0; worst = 0; nblas = struct('single', 0, 'double', 0);
for i = 1:rows(cases)
  [name, C, ref, mag, k, blas] = cases{i, :};
  cls = strtok(name);             % the class the name starts with
  nblas.(cls) += blas;
  bound = 4 * (k + 2) * eps(cls) * mag;
  err = abs(double(C) - ref);
  worst = max(worst, max(err(:) ./ bound(:)));
  if ~isa(C, cls) || any(err(:) > bound(:))
    printf('FAIL %s: class %s, max error %.3e, %d elements out of bound\n', ...
           name, class(C), max(err(:)), nnz(err > bound));
    bad = bad + 1;
  end
end
results = cases(:, 2);
printf('blas: %s\n', version('-blas'));
printf('worst error / bound: %.3f\n', worst);
printf('products single: %d\n', nblas.single);
printf('products double: %d\n', nblas.double);
if strcmp(mode, '--save')
  save('-binary', file, 'results');
elseif strcmp(mode, '--against')
  plain = load(file).results;
  same = 0;
  for i = 1:numel(results)
    same = same + isequal(results{i}, plain{i});
  end
  printf('identical to %s: %d of %d\n', file, same, numel(results));
end
if bad
  printf('FAIL: %d of %d products out of bound\n', bad, rows(cases));
  exit(1);
end
printf('PASS: %d products, single and double, within 4(k+2)eps|A||B| of the exact product\n', rows(cases));
