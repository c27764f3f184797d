/*
 * `weir init [--language sql|python] NAME`: create a pipeline project in
 * ./NAME from the scaffold (spec, example SQL or Python, sample data) and say how to run it, like
 * `spark-pipelines init`. An existing NAME is never touched; if writing
 * fails halfway, whatever was created is removed again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define SPEC_FILE "spark-pipeline.yml"

typedef struct init_state {
    const char *name;
    const scaffold_file *files;
    size_t n_files, n_done; /* files[0..n_done) exist */
    bool spec_done;
} init_state;

/* Whether an executable file called name is in a folder of $PATH. */
static bool on_path(const char *name)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        char file[4096];
        int k = snprintf(file, sizeof(file), "%.*s/%s", (int)n,
                         n ? path : ".", name);
        struct stat st;
        if (k > 0 && (size_t)k < sizeof(file) && stat(file, &st) == 0 &&
            S_ISREG(st.st_mode) && access(file, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

/* The absolute path of the running binary into buf. */
static bool own_path(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    buf[n] = '\0';
    return !strchr(buf, '\'');
}

static bool project_path(char *buf, size_t size, const char *name,
                         const char *rel)
{
    int n = snprintf(buf, size, "%s/%s", name, rel);
    return n > 0 && (size_t)n < size;
}

/* Write text to a new file path, or the spec (name, project folder) when
 * text is NULL. */
static bool write_file(const char *path, const char *text, const char *name,
                       const char *dir)
{
    FILE *f = fopen(path, "wx");
    if (!f)
        return false;
    if (!text)
        scaffold_write_spec(f, name, dir);
    else
        fputs(text, f);
    bool ok = !ferror(f);
    return fclose(f) == 0 && ok;
}

/* Create entry rel: a folder when it ends with '/', else a file. */
static bool create_entry(const char *name, const scaffold_file *f)
{
    char path[4096];
    if (!project_path(path, sizeof path, name, f->path)) {
        errno = ENAMETOOLONG;
        return false;
    }
    if (!f->text)
        return mkdir(path, 0777) == 0;
    return write_file(path, f->text, NULL, NULL);
}

/* Remove what was created, newest first. */
static void roll_back(const init_state *st)
{
    char path[4096];
    for (size_t i = st->n_done; i-- > 0;) {
        if (!project_path(path, sizeof path, st->name, st->files[i].path))
            continue;
        if (st->files[i].text)
            unlink(path);
        else
            rmdir(path);
    }
    if (st->spec_done && project_path(path, sizeof path, st->name, SPEC_FILE))
        unlink(path);
    rmdir(st->name);
}

static int create_project(const cli *c, const char *name, bool python)
{
    init_state st = { name, NULL, 0, 0, false };
    char path[4096];

    if (mkdir(name, 0777) != 0) {
        if (errno == EEXIST) {
            print_error(c, "Directory '%s' already exists. Please choose a "
                           "different name or remove the existing directory.",
                        name);
            return EXIT_USAGE;
        }
        print_error(c, "cannot create directory '%s': %s", name,
                    strerror(errno));
        return EXIT_FAILED;
    }
    /* The Python scaffold is Spark's as well: its storage is an absolute
     * file:// URI, as spark-pipelines init writes it (Spark refuses a
     * relative one); the SQL scaffold's stays relative, so the project can
     * move (docs/spark.md). */
    char dir[4200];
    bool spec_ok = true;
    if (python) {
        char cwd[4096];
        int n = getcwd(cwd, sizeof cwd)
                    ? snprintf(dir, sizeof dir, "%s%s%s", cwd,
                               strcmp(cwd, "/") ? "/" : "", name)
                    : -1;
        if (n >= (int)sizeof dir)
            errno = ENAMETOOLONG;
        spec_ok = n >= 0 && n < (int)sizeof dir;
    }
    st.files = scaffold_files(python, &st.n_files);
    st.spec_done = spec_ok &&
                   project_path(path, sizeof path, name, SPEC_FILE) &&
                   write_file(path, NULL, name, python ? dir : NULL);
    while (st.spec_done && st.n_done < st.n_files &&
           create_entry(name, &st.files[st.n_done]))
        st.n_done++;
    if (!st.spec_done || st.n_done < st.n_files) {
        int saved = errno;
        roll_back(&st);
        print_error(c, "cannot create project '%s': %s", name,
                    strerror(saved));
        return EXIT_FAILED;
    }
    char self[4096];
    bool by_path = !on_path("weir") && own_path(self, sizeof(self));
    printf("Pipeline project '%s' created successfully. To run your "
           "pipeline:\n  cd '%s'\n  %s%s%s run\n",
           name, name, by_path ? "'" : "", by_path ? self : "weir",
           by_path ? "'" : "");
    if (by_path)
        printf("(weir is not on your PATH: add its folder to PATH, or "
               "install it with cmake --install, to run it as weir)\n");
    return EXIT_OK;
}

static bool valid_name(const char *name)
{
    if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return false;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p == '/' || *p < 0x20)
            return false;
    return true;
}

int cmd_init(const cli *c, int argc, char **argv)
{
    static const opt_def defs[] = { { "name", true },
                                    { "language", true },
                                    { NULL, false } };
    const char *name = NULL, *value = NULL;
    bool python = false;
    opt_iter it;
    int id;

    opt_init(&it, argv[0], argc, argv);
    while ((id = opt_next(&it, defs, &value)) != OPT_END) {
        if (id == OPT_HELP) {
            help_command(stdout, "init");
            return EXIT_OK;
        }
        if (id == OPT_ERROR)
            return EXIT_USAGE;
        if (id == 1) {
            if (strcmp(value, "python") != 0 && strcmp(value, "sql") != 0) {
                print_error(c, "unknown language '%s' (use sql or python)",
                            value);
                return EXIT_USAGE;
            }
            python = strcmp(value, "python") == 0;
            continue;
        }
        if (name)
            return opt_unexpected(&it, value);
        name = value;
    }
    if (!name) {
        print_error(c, "init needs a project name: weir init NAME");
        return EXIT_USAGE;
    }
    if (!valid_name(name)) {
        print_error(c, "invalid project name '%s': it names a folder to "
                       "create in the current one",
                    name);
        return EXIT_USAGE;
    }
    return create_project(c, name, python);
}
