/*
 * Standalone driver for fuzz targets in builds without libFuzzer: feeds
 * every file named on the command line (or found in a named folder) to
 * LLVMFuzzerTestOneInput once. The sanitizer build runs each seed corpus
 * this way as part of the test suite.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
    if (!data || (n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(data);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)n);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            while (d && (e = readdir(d))) {
                if (e->d_name[0] == '.')
                    continue;
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
                if (run_file(path))
                    return 1;
                count++;
            }
            if (d)
                closedir(d);
        } else {
            if (run_file(argv[i]))
                return 1;
            count++;
        }
    }
    printf("replayed %d inputs\n", count);
    return 0;
}
