#!/bin/bash
# scripts/ab_gpu.sh OLD_GPU_C [SHAPES] - A/B of src/gpu/gpu.c on the H200: builds
# this tree (B) and a copy with OLD_GPU_C as src/gpu/gpu.c (A), then times the
# shim forced onto the GPU on each shape, A and B alternately, two rounds
# (bench_e2e, median of 9 calls each). With AB_SWITCH_SHAPES=s1,s2,... it
# then runs bench_switch on those shapes with A and B alternately (300 ms
# idle before each trial): the shim's time right after OpenBLAS calls
# ("CPU,GPU") against after idle ("GPU,CPU"). Run after
# scripts/gpu_check.sh has unpacked .deps and built /tmp/tb-build
# (TB_STEPS=none is enough).
set -u
old=$1
shapes=${2:-1000x1000x1000,1023x1023x1023,1024x1024x1024,700x200x900,2000x500x3000,1000x3000x2000,1500x1500x64,300x300x300,512x512x512,3000x1000x500,4096x4096x4096}
prefix=/tmp/tb-prefix; lib=$prefix/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$lib/openblas-pthread:$lib OPENBLAS_CORETYPE=SkylakeX TILEDBLAS_CACHE_DIR=/tmp/tb-cache
rm -rf /tmp/ab-src; mkdir /tmp/ab-src
tar cf - --exclude=.deps --exclude=build --exclude=.git . | tar xf - -C /tmp/ab-src
cp "$old" /tmp/ab-src/src/gpu/gpu.c
cmake -S /tmp/ab-src -B /tmp/ab-build -G Ninja -DCMAKE_PREFIX_PATH="$prefix/usr" \
    -DCMAKE_LIBRARY_PATH="$lib/openblas-pthread" \
    -DCMAKE_INCLUDE_PATH="$prefix/usr/include/x86_64-linux-gnu/openblas-pthread" > /tmp/ab.log 2>&1
cmake --build /tmp/ab-build --target tiledblas_lib bench_e2e bench_switch >> /tmp/ab.log 2>&1 \
    || { tail -20 /tmp/ab.log; exit 1; }
A=/tmp/ab-build; B=/tmp/tb-build
echo "shape: A ($old) and B (this tree), forced GPU, ms; two rounds"
for round in 1 2; do
    for s in $(echo $shapes | tr , ' '); do
        line=$s
        for v in A B; do d=${!v}
            t=$(TILEDBLAS_MODE=gpu $d/bench_e2e $d/libtiledblas.so --shapes $s --reps 9 --no-naive | awk '/^[0-9]+x/{print $3}')
            line="$line $v=$t"
        done
        echo "$line"
    done
done
for s in $(echo ${AB_SWITCH_SHAPES:-} | tr , ' '); do
    for v in A B; do d=${!v}
        echo "-- $v: $($d/bench_switch $d/libtiledblas.so --shape $s --gap-ms 300 --trials 8 | tail -5 | sed -n '1s/:.*//p;4,5p' | tr '\n' ' ')"
    done
done
