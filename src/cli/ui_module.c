/*
 * Loading the UI module (libweir-ui.so; src/ui/ui.h) for `weir ui` and
 * `weir report --html`: beside the weir binary (the build tree), then in
 * the library folder an installed weir links libweir.so from. The module
 * stays loaded until the process exits.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "ui/ui.h"

#ifndef WEIR_CLI_LIBDIR_REL
#define WEIR_CLI_LIBDIR_REL "../lib"
#endif

/* The folder of the running binary into dir; false if unknown. */
static bool own_folder(char *dir, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return true;
}

const ui_module *ui_module_load(const cli *c)
{
    char dir[PATH_MAX], path[PATH_MAX + 64];
    const char *why = "cannot find the folder of the weir binary";
    if (own_folder(dir, sizeof(dir))) {
        const char *places[] = { "", "/" WEIR_CLI_LIBDIR_REL };
        for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
            snprintf(path, sizeof(path), "%s%s/%s", dir, places[i],
                     UI_MODULE_FILE);
            if (access(path, F_OK) != 0) {
                why = "not found";
                continue;
            }
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            const ui_module *(*entry)(void) = NULL;
            if (h)
                *(void **)&entry = dlsym(h, UI_MODULE_SYMBOL);
            if (entry)
                return entry();
            why = dlerror();
            if (h)
                dlclose(h);
            break;
        }
    }
    print_error(c, "cannot load weir's UI module %s (beside the weir binary "
                   "or in %s/%s from it): %s",
                UI_MODULE_FILE, dir, WEIR_CLI_LIBDIR_REL,
                why ? why : "unknown error");
    return NULL;
}
