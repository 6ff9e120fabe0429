/* tests/check.h - the check every unit test counts with: CHECK (counts,
 * prints each failure with its place and a reason) and the summary line
 * that ends the program. C and CUDA host code, no library headers. */
#ifndef TB_CHECK_H
#define TB_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...) do {                                   \
        if (cond) { passed++; } else {                          \
            failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__); printf("\n"); }                \
    } while (0)

/* Ends main: "name: N passed, N failed" and the exit code. */
static int unit_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, passed, failed);
    return failed ? 1 : 0;
}

#endif
