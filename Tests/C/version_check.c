/* version_check.c — the header's NC_VERSION_* must describe the loaded library. */
#include <stdio.h>
#include <string.h>

#include "netcore.h"

int main(void) {
    const char *v = nc_version();
    unsigned long n = (unsigned long)nc_version_number();
    char text[32];
    int ok = 1;

    sprintf(text, "%d.%d.%d", NC_VERSION_MAJOR, NC_VERSION_MINOR, NC_VERSION_PATCH);
    printf("header %s (0x%06lx), library %s (0x%06lx)\n", NC_VERSION_STRING,
           (unsigned long)NC_VERSION_NUMBER, v ? v : "(null)", n);
    if (n != (unsigned long)NC_VERSION_NUMBER) {
        fprintf(stderr, "nc_version_number() != NC_VERSION_NUMBER\n");
        ok = 0;
    }
    if (v == NULL || strcmp(v, NC_VERSION_STRING) != 0) {
        fprintf(stderr, "nc_version() != NC_VERSION_STRING\n");
        ok = 0;
    }
    if (strcmp(text, NC_VERSION_STRING) != 0) {
        fprintf(stderr, "NC_VERSION_STRING != MAJOR.MINOR.PATCH\n");
        ok = 0;
    }
    return ok ? 0 : 1;
}
