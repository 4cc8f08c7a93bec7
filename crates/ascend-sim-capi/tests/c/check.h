/* Small helpers shared by the C test programs. */
#ifndef CHECK_H
#define CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

#define EXPECT_CODE(expr, want)                                                                     \
    do {                                                                                            \
        aclError got_ = (expr);                                                                     \
        if (got_ != (want)) {                                                                       \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d\n", __FILE__, __LINE__, #expr, got_, \
                    (int)(want));                                                                   \
            failures++;                                                                             \
        }                                                                                           \
    } while (0)

#define CHECK(expr) EXPECT_CODE(expr, ACL_SUCCESS)

#define FINISH()                                                                                    \
    do {                                                                                            \
        if (failures) {                                                                             \
            printf("FAILURE: %d check(s) failed\n", failures);                                      \
            return 1;                                                                               \
        }                                                                                           \
        printf("SUCCESS\n");                                                                        \
        return 0;                                                                                   \
    } while (0)
#endif
