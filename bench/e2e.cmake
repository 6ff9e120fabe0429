# bench/e2e.cmake - the end-to-end benchmark (bench_e2e.c), included by the
# top-level CMakeLists.txt.
find_package(OpenMP)
add_executable(bench_e2e ${CMAKE_CURRENT_LIST_DIR}/bench_e2e.c)
target_link_libraries(bench_e2e PRIVATE CUDA::cudart_static ${CMAKE_DL_LIBS} m)
if(OpenMP_C_FOUND)
  target_link_libraries(bench_e2e PRIVATE OpenMP::OpenMP_C)
endif()
add_executable(bench_overhead ${CMAKE_CURRENT_LIST_DIR}/bench_overhead.c)
target_include_directories(bench_overhead PRIVATE ${TB_CBLAS_INCLUDE})
target_link_libraries(bench_overhead PRIVATE ${TB_OPENBLAS})
