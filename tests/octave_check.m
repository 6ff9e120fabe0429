% tests/octave_check.m - single-precision products in Octave, each checked
% against a double-precision reference. Octave hands every product of two
% single matrices (neither one a vector) to the Fortran sgemm_ of the BLAS
% behind libblas.so.3; run under the preload, every one must be right and
% intercepted. Prints 'products: N' (the products that reach sgemm_) and a
% PASS or FAIL line; exits 1 on failure.
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

randn('state', 7);
r = @(m, n) single(randn(m, n));
% Each case: name, the single-precision product, and the same two operands
% as the product sees them (after any transpose) for the reference. The two
% operands are always different matrices: A*A' would go to ssyrk_.
cases = {};
for s = [64 64 64; 300 257 513; 600 600 600; 1024 512 700]'   % m, k, n
  m = s(1); k = s(2); n = s(3);
  A = r(m, k); B = r(k, n); At = r(k, m); Bt = r(n, k);
  tag = sprintf('%dx%dx%d', m, k, n);
  cases(end+1, :) = {[tag ' A*B'],   A * B,     A,   B};
  cases(end+1, :) = {[tag ' A''*B'],  At' * B,   At', B};     % sgemm_ TN
  cases(end+1, :) = {[tag ' A*B'''],  A * Bt',   A,   Bt'};    % sgemm_ NT
  cases(end+1, :) = {[tag ' A''*B'''], At' * Bt', At', Bt'};   % TN on an explicit B'
end
% Skinny, matrix-vector-like: a tall matrix times three columns, and three
% rows times it.
A = r(4000, 700); X = r(700, 3); Y = r(3, 4000);
cases(end+1, :) = {'skinny 4000x700x3', A * X, A, X};
cases(end+1, :) = {'skinny 3x4000x700', Y * A, Y, A};
% A double operand is converted, the product stays single.
A = r(333, 444); D = randn(444, 555);
cases(end+1, :) = {'single*double 333x444x555', A * D, A, single(D)};
% A vector goes to sgemv_, which the library does not export: checked, not
% counted in 'products'.
v = r(444, 1);
cases(end+1, :) = {'matrix*vector 333x444x1', A * v, A, v};

bad = 0; worst = 0; nblas = 0;
for i = 1:rows(cases)
  [name, C, A, B] = cases{i, :};
  k = columns(A);
  nblas = nblas + (rows(A) > 1 && columns(B) > 1);
  ref = double(A) * double(B);
  bound = 4 * (k + 2) * eps('single') * (abs(double(A)) * abs(double(B)));
  err = abs(double(C) - ref);
  worst = max(worst, max(err(:) ./ bound(:)));
  if ~isa(C, 'single') || any(err(:) > bound(:))
    printf('FAIL %s: class %s, max error %.3e, %d elements out of bound\n', ...
           name, class(C), max(err(:)), nnz(err > bound));
    bad = bad + 1;
  end
end
results = cases(:, 2);
printf('blas: %s\n', version('-blas'));
printf('worst error / bound: %.3f\n', worst);
printf('products: %d\n', nblas);
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
  printf('FAIL: %d of %d single-precision products out of bound\n', bad, rows(cases));
  exit(1);
end
printf('PASS: %d single-precision products within 4(k+2)eps|A||B| of double\n', rows(cases));
