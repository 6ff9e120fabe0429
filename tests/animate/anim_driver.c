/* tests/animate/anim_driver.c - `tiledblas animate` without the library: the
 * same options and output, with the test kernel table (anim_kernels.h). The
 * shell tests drive it; it proves nothing by itself. */
#include "anim_kernels.h"

int main(int argc, char **argv)
{
    return tb_animate_main(argc, argv, tb_test_kernels, TB_TEST_NKERNELS);
}
