/* planted.c - a library planted in the current folder under the name of
 * one the fake driver needs (libdl.so.2, librt.so.1; the Makefile builds
 * both from this file). Loaded, it appends a line to the file that
 * COLLVIZ_PLANTED_MARK names: test_hostile_cli checks that collviz never
 * loads it, whatever LD_LIBRARY_PATH holds. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void planted(void)
{
    const char *mark = getenv("COLLVIZ_PLANTED_MARK");
    int fd = mark ? open(mark, O_WRONLY | O_CREAT | O_APPEND, 0600) : -1;
    if (fd < 0)
        return;
    if (write(fd, "loaded\n", 7) != 7) {
        /* the mark is the file's existence */
    }
    close(fd);
}
