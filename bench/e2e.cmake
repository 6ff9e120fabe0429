# bench/e2e.cmake - the end-to-end benchmarks, included by the top-level
# CMakeLists.txt: bench_e2e.c (one call, single or double precision:
# OpenBLAS, the shim, the kernel alone, a peer preload and the naive
# offload), bench_repeat.c (a plain BLAS
# client calling cblas_sgemm again and again on the same buffers; driven by
# scripts/bench_repeat.sh), bench_overhead.c (the cost of a 4x4 call).
find_package(OpenMP)
add_executable(bench_e2e ${CMAKE_CURRENT_LIST_DIR}/bench_e2e.c)
target_include_directories(bench_e2e PRIVATE ${CMAKE_SOURCE_DIR}/src/gpu)   # tb_no_gpu.h
target_compile_options(bench_e2e PRIVATE ${TB_WARNINGS})
target_link_libraries(bench_e2e PRIVATE CUDA::cudart_static ${CMAKE_DL_LIBS} m)
if(OpenMP_C_FOUND)
  target_link_libraries(bench_e2e PRIVATE OpenMP::OpenMP_C)
endif()
# bench.e2e-shapes: the sweep's shape syntax (transposes, padded leading
#   dimensions) end to end, in single and (--double) double precision:
#   every row's relative error against the reference is small for its
#   precision, below 1e-6 and 1e-13 (it would not be if the check, the call
#   or the shim read the pads, or if a double call took an fp32 path), the
#   header names the precision, the labels come back as given, and a bad
#   shape is refused.
add_test(NAME bench.e2e-shapes COMMAND sh -c
  "for prec in single double; do
     if [ $prec = single ]; then opt=; bound=1e-6; else opt=--double; bound=1e-13; fi
     out=$(\"$1\" \"$2\" $opt --shapes 130x70x90,130x70x90:TN+3,90x130x70:NT+16,70x90x130:TT+1,50 --reps 2 --no-naive); rc=$?
     printf '%s\\n' \"$out\"
     [ $rc = 0 ] || { echo \"FAIL: $prec: exit status $rc\"; exit 1; }
     printf '%s\\n' \"$out\" | head -1 | grep -q \"; $prec precision\" || { echo \"FAIL: the header does not say $prec\"; exit 1; }
     for s in 130x70x90 130x70x90:TN+3 90x130x70:NT+16 70x90x130:TT+1 50x50x50; do
       printf '%s\\n' \"$out\" | awk -v s=$s -v b=$bound '$1 == s && $9 + 0 < b + 0 { ok = 1 } END { exit !ok }' ||
         { echo \"FAIL: $prec: $s: no row, or its relative error is not below $bound\"; exit 1; }
     done
   done
   \"$1\" \"$2\" --shapes 30x20x10:XN > /dev/null 2>&1; [ $? = 2 ] || { echo 'FAIL: a bad shape was not refused'; exit 1; }"
  sh $<TARGET_FILE:bench_e2e> $<TARGET_FILE:tiledblas_lib>)
# bench_level3: symm, hemm, syrk, herk, syr2k, her2k, trmm and trsm, one call
# from host arrays through the library against OpenBLAS's, each precision,
# and with --peer a Fortran-name peer (NVBLAS under its preload).
# bench.level3: at 70 and 130 (more than the 32 the blocked routines cut at)
# in forced-GPU mode, with OpenBLAS's own Fortran names as the peer: 52 rows
# (5 routines in s and d, 8 in c and z, at two sizes), each one's library
# result (on the GPU route where there is a GPU) and peer result (the
# column-major form of the call, bench_l3.h) close to OpenBLAS's for its
# precision.
add_executable(bench_level3 ${CMAKE_CURRENT_LIST_DIR}/bench_level3.c)
target_compile_options(bench_level3 PRIVATE ${TB_WARNINGS})
target_link_libraries(bench_level3 PRIVATE ${CMAKE_DL_LIBS} m)
add_test(NAME bench.level3 COMMAND sh -c
  "out=$(TILEDBLAS_MODE=gpu \"$1\" \"$2\" --sizes 70,130 --reps 1 --peer fortran); rc=$?
   printf '%s\\n' \"$out\"
   [ $rc = 0 ] || { echo \"FAIL: exit status $rc\"; exit 1; }
   [ $(printf '%s\\n' \"$out\" | grep -cE '^[sdcz][a-z2]+ +[0-9]+ ') = 52 ] || { echo 'FAIL: not 52 rows'; exit 1; }
   printf '%s\\n' \"$out\" | awk '/^[sdcz][a-z2]+ +[0-9]+ / {
       b = $1 ~ /^[sc]/ ? 1e-4 : 1e-12
       if (!($7 ~ /^[0-9]/ && $7 + 0 < b && $10 ~ /^[0-9]/ && $10 + 0 < b)) { print \"FAIL: \" $0; bad = 1 } }
       END { exit bad }'"
  sh $<TARGET_FILE:bench_level3> $<TARGET_FILE:tiledblas_lib>)
# A call sent to the CPU through the shim against OpenBLAS called directly,
# alternately in one process (is the CPU route free?).
add_executable(bench_cpu_route ${CMAKE_CURRENT_LIST_DIR}/bench_cpu_route.c)
target_compile_options(bench_cpu_route PRIVATE ${TB_WARNINGS})
target_link_libraries(bench_cpu_route PRIVATE CUDA::cudart_static ${CMAKE_DL_LIBS} m)
# Every layout and transpose through the preload beside RowMajor NN.
add_executable(bench_layouts ${CMAKE_CURRENT_LIST_DIR}/bench_layouts.c)
target_compile_options(bench_layouts PRIVATE ${TB_WARNINGS})
target_link_libraries(bench_layouts PRIVATE ${CMAKE_DL_LIBS} m)
add_test(NAME bench.layouts COMMAND bench_layouts $<TARGET_FILE:tiledblas_lib> --size 300 --reps 2)
add_executable(bench_overhead ${CMAKE_CURRENT_LIST_DIR}/bench_overhead.c)
target_include_directories(bench_overhead PRIVATE ${TB_CBLAS_INCLUDE})
target_link_libraries(bench_overhead PRIVATE ${TB_OPENBLAS})
# Linked to OpenBLAS like any user program; OpenMP only speeds up its
# float64 check, which runs after the timed calls.
add_executable(bench_repeat ${CMAKE_CURRENT_LIST_DIR}/bench_repeat.c)
target_include_directories(bench_repeat PRIVATE ${TB_CBLAS_INCLUDE})
target_compile_options(bench_repeat PRIVATE ${TB_WARNINGS})
target_link_libraries(bench_repeat PRIVATE ${TB_OPENBLAS} m)
if(OpenMP_C_FOUND)
  target_link_libraries(bench_repeat PRIVATE OpenMP::OpenMP_C)
endif()

# Tests (no GPU needed; small sizes stay on the CPU path even where there is
# one, below TILEDBLAS_THRESHOLD):
# bench.repeat-preload: bench_repeat under the preload passes its own float64
#   check, through cblas_sgemm and through sgemm_ (--fortran), and every one
#   of its 2 x 6 calls went through the preload (one decision line each).
add_test(NAME bench.repeat-preload COMMAND sh -c
  "for api in cblas fortran; do
     if [ $api = cblas ]; then opt=; want='sgemm RowMajor NN m=150 n=130 k=170 -> '
     else opt=--fortran; want='sgemm_ ColMajor NN m=130 n=150 k=170 -> '; fi
     out=$(LD_PRELOAD=\"$1\" TILEDBLAS_VERBOSE=2 \"$2\" --m 150 --n 130 --k 170 --calls 6 --rows 16 $opt 2>&1); rc=$?
     printf '%s\\n' \"$out\"
     [ $rc = 0 ] || { echo \"FAIL: $api: exit status $rc\"; exit 1; }
     n=$(printf '%s\\n' \"$out\" | grep -c \"$want\")
     [ \"$n\" = 12 ] || { echo \"FAIL: $api: $n decision lines, want 12\"; exit 1; }
   done"
  sh $<TARGET_FILE:tiledblas_lib> $<TARGET_FILE:bench_repeat>)
# bench.repeat-script: the driver runs it plain and preloaded, both pass their
#   checks (exit 0), and it prints the table.
add_test(NAME bench.repeat-script COMMAND sh -c
  "out=$(bash \"$1\" \"$2\" --m 96 --n 200 --k 120 --calls 4 --rows 8 2>&1); rc=$?
   printf '%s\\n' \"$out\"
   [ $rc = 0 ] || { echo \"FAIL: exit status $rc\"; exit 1; }
   printf '%s\\n' \"$out\" | grep -q '^steady-state median ms .*x$' || { echo 'FAIL: no table'; exit 1; }"
  sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/bench_repeat.sh $<TARGET_FILE:tiledblas_lib>)
set_tests_properties(bench.repeat-script PROPERTIES
  ENVIRONMENT "BENCH_REPEAT=$<TARGET_FILE:bench_repeat>")
# bench.e2e-naive: bench_e2e with its naive-offload column runs to the end; each
# row ends in a time and ratio, or in "n/a n/a" (no GPU).
add_test(NAME bench.e2e-naive COMMAND sh -c
  "\"$1\" \"$2\" --sizes 96,64x80x72 --reps 2 > \"$3\" || { echo \"FAIL: exit status $?\"; exit 1; }
   cat \"$3\"
   grep -q 'naive ms' \"$3\" || { echo 'FAIL: no naive column'; exit 1; }
   awk '/^[0-9]+x[0-9]+x[0-9]+ / { rows++; if (!($(NF-1) == \"n/a\" && $NF == \"n/a\" || $NF ~ /^[0-9.]+x$/)) bad++ }
        END { if (rows != 2 || bad) { print \"FAIL: rows \" rows \", bad \" bad; exit 1 } }' \"$3\""
  sh $<TARGET_FILE:bench_e2e> $<TARGET_FILE:tiledblas_lib> ${CMAKE_CURRENT_BINARY_DIR}/bench_e2e_naive.out)
set_tests_properties(bench.repeat-preload bench.repeat-script bench.e2e-naive PROPERTIES TIMEOUT 120)
# One route right after the other in one process: OpenBLAS called directly
# after calls the shim sent to the GPU, and the shim's GPU calls right after
# OpenBLAS calls (what a mixed program pays on each switch).
add_executable(bench_switch ${CMAKE_CURRENT_LIST_DIR}/bench_switch.c)
target_compile_options(bench_switch PRIVATE ${TB_WARNINGS})
target_link_libraries(bench_switch PRIVATE ${CMAKE_DL_LIBS} m)
# bench.switch: runs to the end with or without a GPU and prints its three rows.
add_test(NAME bench.switch COMMAND sh -c
  "out=$(\"$1\" \"$2\" --shape 64x48x80 --gap-ms 1 --trials 3 --rows 2>&1); rc=$?
   printf '%s\\n' \"$out\"
   [ $rc = 0 ] || { echo \"FAIL: exit status $rc\"; exit 1; }
   [ $(printf '%s\\n' \"$out\" | grep -cE '^(alone|GPU,CPU|CPU,GPU) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ of 9 ') = 3 ] \
     || { echo 'FAIL: want the alone, GPU,CPU and CPU,GPU rows'; exit 1; }
   [ $(printf '%s\\n' \"$out\" | grep -cE '^(CPU,GPU) .* [0-9.]+ +[0-9.]+$') = 1 ] \
     || { echo 'FAIL: want the shim columns in the CPU,GPU row'; exit 1; }
   [ $(printf '%s\\n' \"$out\" | grep -c 'trial ') = 9 ] || { echo 'FAIL: want 9 trial rows'; exit 1; }"
  sh $<TARGET_FILE:bench_switch> $<TARGET_FILE:tiledblas_lib>)

# bench_startup: a short program (fill, CALLS products of n^3, exit) whose
# whole-process time scripts/startup.sh compares alone and under the preload.
add_executable(bench_startup ${CMAKE_CURRENT_LIST_DIR}/bench_startup.c)
target_include_directories(bench_startup PRIVATE ${TB_CBLAS_INCLUDE})
target_compile_options(bench_startup PRIVATE ${TB_WARNINGS})
target_link_libraries(bench_startup PRIVATE ${TB_OPENBLAS})
# bench.startup: the script runs both sides and prints its table; the
# preloaded runs print the same checksum as OpenBLAS alone.
add_test(NAME bench.startup COMMAND sh -c
  "out=$(bash \"$1\" \"$2\" \"$3\" --rounds 2 --programs 200x3,160x4:double 2>&1); rc=$?
   printf '%s\\n' \"$out\"
   [ $rc = 0 ] || { echo \"FAIL: exit status $rc\"; exit 1; }
   [ $(printf '%s\\n' \"$out\" | grep -c '^[0-9]*x[0-9]*') = 2 ] || { echo 'FAIL: no table'; exit 1; }"
  sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/startup.sh $<TARGET_FILE:tiledblas_lib> $<TARGET_FILE:bench_startup>)
set_tests_properties(bench.startup PROPERTIES TIMEOUT 120)
set_tests_properties(bench.e2e-shapes bench.layouts bench.repeat-preload bench.repeat-script
  bench.e2e-naive bench.switch bench.startup bench.level3 PROPERTIES LABELS bench)
