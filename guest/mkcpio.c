/*
 * mkcpio: write a "newc" cpio archive (an initramfs) from a list of entries,
 * without needing root for device nodes.  Host tool of the smmulab guest kit.
 *
 *   mkcpio OUT.cpio ENTRY...
 *     dir  NAME MODE
 *     nod  NAME MODE c|b MAJOR MINOR
 *     file NAME SOURCE MODE
 *   (each ENTRY is one argument, fields separated by spaces; MODE in octal)
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned int ino = 1;

static void pad4(FILE *out, unsigned long len)
{
    static const char zeros[4];

    fwrite(zeros, 1, (4 - (len & 3)) & 3, out);
}

static void header(FILE *out, const char *name, unsigned int mode,
                   unsigned long size, unsigned int rmaj, unsigned int rmin)
{
    unsigned long namesize = strlen(name) + 1;

    /* mtime 0: the archive is reproducible */
    fprintf(out, "070701%08X%08X%08X%08X%08X%08X%08lX%08X%08X%08X%08X%08lX%08X",
            ino++, mode, 0, 0, (mode & S_IFMT) == S_IFDIR ? 2 : 1, 0, size,
            0, 0, rmaj, rmin, namesize, 0);
    fwrite(name, 1, namesize, out);
    pad4(out, 110 + namesize);
}

static int die(const char *fmt, const char *arg)
{
    fprintf(stderr, "mkcpio: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    return 1;
}

int main(int argc, char **argv)
{
    FILE *out;
    int i;

    if (argc < 2) {
        fprintf(stderr, "usage: mkcpio OUT.cpio ENTRY...\n");
        return 2;
    }
    out = fopen(argv[1], "wb");
    if (!out) {
        return die("cannot create %s", argv[1]);
    }
    for (i = 2; i < argc; i++) {
        char name[256], src[4096], type;
        unsigned int mode, maj, min;

        if (sscanf(argv[i], "dir %255s %o", name, &mode) == 2 &&
            !strncmp(argv[i], "dir ", 4)) {
            header(out, name, S_IFDIR | mode, 0, 0, 0);
        } else if (sscanf(argv[i], "nod %255s %o %c %u %u", name, &mode,
                          &type, &maj, &min) == 5 && (type == 'c' || type == 'b')) {
            header(out, name, (type == 'c' ? S_IFCHR : S_IFBLK) | mode, 0,
                   maj, min);
        } else if (sscanf(argv[i], "file %255s %4095s %o", name, src, &mode) == 3) {
            FILE *in = fopen(src, "rb");
            char buf[65536];
            size_t n;
            long size;

            if (!in) {
                return die("cannot open %s", src);
            }
            fseek(in, 0, SEEK_END);
            size = ftell(in);
            rewind(in);
            header(out, name, S_IFREG | mode, size, 0, 0);
            while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
                fwrite(buf, 1, n, out);
            }
            if (ferror(in)) {
                return die("cannot read %s", src);
            }
            fclose(in);
            pad4(out, size);
        } else {
            return die("bad entry '%s'", argv[i]);
        }
    }
    header(out, "TRAILER!!!", 0, 0, 0, 0);
    if (fclose(out)) {
        return die("cannot write %s", argv[1]);
    }
    return 0;
}
