/*
 * Loading the UI module (libweir-ui.so; src/ui/ui.h) for `weir ui` and
 * `weir report --html`: beside the weir binary (the build tree), in the
 * library folder relative to it that an install uses, then beside the
 * libweir.so the binary loaded. The module stays loaded until the process
 * exits.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ui/ui.h"
#include "weir.h"

#ifndef WEIR_CLI_LIBDIR_REL
#define WEIR_CLI_LIBDIR_REL "../lib"
#endif

/* The folder part of path, in place; false if there is none. */
static bool folder_of(char *path)
{
    char *slash = strrchr(path, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return true;
}

/* The folder of the running binary into dir (size bytes). */
static bool own_folder(char *dir, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    dir[n] = '\0';
    return folder_of(dir);
}

/* The folder of the libweir.so this process loaded into dir. */
static bool library_folder(char *dir, size_t size)
{
    Dl_info info;
    const char *(*fn)(void) = weir_version;
    void *addr; /* an address inside libweir (ISO C: no cast of a function) */
    memcpy(&addr, &fn, sizeof(addr));
    if (!dladdr(addr, &info) || !info.dli_fname ||
        strlen(info.dli_fname) >= size)
        return false;
    snprintf(dir, size, "%s", info.dli_fname);
    return folder_of(dir);
}

/* Try dir/rel/UI_MODULE_FILE: 1 loaded (*out set), 0 not there, -1 there
 * but not loadable (*why says why). */
static int try_load(const char *dir, const char *rel, const ui_module **out,
                    const char **why)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s%s/%s", dir, rel, UI_MODULE_FILE);
    if (access(path, F_OK) != 0)
        return 0;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const ui_module *(*entry)(void) = NULL;
    if (h)
        *(void **)&entry = dlsym(h, UI_MODULE_SYMBOL);
    if (entry) {
        *out = entry();
        return 1;
    }
    *why = dlerror();
    if (h)
        dlclose(h);
    return -1;
}

const ui_module *ui_module_load(const cli *c)
{
    char exe[PATH_MAX] = "", lib[PATH_MAX] = "";
    const ui_module *m = NULL;
    const char *why = NULL;
    int found = 0;
    if (own_folder(exe, sizeof(exe))) {
        found = try_load(exe, "", &m, &why);
        if (!found)
            found = try_load(exe, "/" WEIR_CLI_LIBDIR_REL, &m, &why);
    }
    if (!found && library_folder(lib, sizeof(lib)))
        found = try_load(lib, "", &m, &why);
    if (found > 0)
        return m;
    print_error(c, "cannot load weir's UI module %s (looked beside the weir "
                   "binary%s%s, in %s from it, and beside libweir.so%s%s): %s",
                UI_MODULE_FILE, exe[0] ? " in " : "", exe, WEIR_CLI_LIBDIR_REL,
                lib[0] ? " in " : "", lib,
                found < 0 && why ? why : "not found");
    return NULL;
}
