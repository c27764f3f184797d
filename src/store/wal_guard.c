/*
 * A guard against one abort in DuckDB 1.4 (duckdb/duckdb#22860): when a
 * commit's write or fsync of the write-ahead log fails, the commit takes
 * its bytes back out of the log (SingleFileStorageCommitState::
 * RevertCommit truncates the file), and when that truncate fails too, as
 * it does on a disk that stays broken (EIO, ENOSPC, EDQUOT), the
 * IOException leaves DuckTransaction::Commit, which is noexcept:
 * std::terminate, SIGABRT. No DuckDB release up to 1.5.5 catches it, and
 * nothing weir calls can, so weir keeps that one truncate from failing.
 *
 * libduckdb.so's calls to ftruncate are pointed at guarded_ftruncate (its
 * slot in the library's global offset table, once per process). That
 * calls the real ftruncate; only when it fails and the call comes from
 * RevertCommit does it step in: the log's file descriptor is replaced by
 * a read-only one of the same file, so that this process never writes
 * that log again (every later write of it fails), and the truncate
 * reports success. The commit still fails with its own error, weir
 * refuses every later commit of the storage (storage.c) and closes the
 * instance without DuckDB's checkpoint. The log keeps the failed commit's
 * bytes: the next open drops them (they end without a commit marker) or,
 * when only the fsync failed, replays them as the whole commit they are;
 * either way a batch's rows and its checkpoint stay together.
 *
 * What this file owns: the process's pointer to the real ftruncate and
 * RevertCommit's address range, written once.
 */
#define _GNU_SOURCE
#include "store/wal_guard.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <duckdb.h>

typedef int (*ftruncate_fn)(int, off_t);

/* RevertCommit of DuckDB 1.4's single-file storage, as exported. */
#define REVERT_SYMBOL "_ZN6duckdb28SingleFileStorageCommitState12RevertCommitEv"

static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static ftruncate_fn real_ftruncate;
static uintptr_t revert_lo, revert_hi; /* RevertCommit's code */
static volatile int guard_installed;

/* Whether the caller chain holds RevertCommit (return addresses point
 * just past their call, hence lo < a <= hi). */
static bool reverting_commit(void)
{
    void *frames[24];
    int n = backtrace(frames, 24);
    for (int i = 0; i < n; i++) {
        uintptr_t a = (uintptr_t)frames[i];
        if (a > revert_lo && a <= revert_hi)
            return true;
    }
    return false;
}

/* Replace fd by a read-only descriptor of the same file (of /dev/null
 * when the file cannot be opened again): writes through fd fail from now
 * on, reads and fstat keep working. */
static void make_read_only(int fd)
{
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    int ro = -1;
    if (n > 0) {
        path[n] = '\0';
        ro = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (ro < 0)
        ro = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (ro >= 0) {
        dup3(ro, fd, O_CLOEXEC);
        close(ro);
    }
}

static int guarded_ftruncate(int fd, off_t len)
{
    int rc = real_ftruncate(fd, len);
    if (rc == 0 || !reverting_commit())
        return rc;
    make_read_only(fd);
    return 0;
}

typedef struct {
    const char *name;        /* libduckdb.so as loaded */
    ftruncate_fn *slot;      /* its GOT entry for ftruncate */
    uintptr_t relro_lo, relro_hi;
} duck_object;

/* A dynamic-section address: glibc rebases most of them in place, but not
 * on every architecture. */
static uintptr_t dyn_ptr(ElfW(Addr) v, uintptr_t base)
{
    return v < base ? v + base : v;
}

#if __WORDSIZE == 64
#define REL_SYM(info) ELF64_R_SYM(info)
#else
#define REL_SYM(info) ELF32_R_SYM(info)
#endif

/* dl_iterate_phdr: find libduckdb's PLT relocation of ftruncate. */
static int find_slot(struct dl_phdr_info *pi, size_t size, void *data)
{
    (void)size;
    duck_object *o = data;
    if (!pi->dlpi_name || strcmp(pi->dlpi_name, o->name) != 0)
        return 0;
    uintptr_t base = pi->dlpi_addr;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < pi->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &pi->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(base + ph->p_vaddr);
        if (ph->p_type == PT_GNU_RELRO) {
            o->relro_lo = base + ph->p_vaddr;
            o->relro_hi = o->relro_lo + ph->p_memsz;
        }
    }
    uintptr_t jmprel = 0, symtab = 0, strtab = 0;
    size_t pltrelsz = 0;
    ElfW(Sxword) pltrel = 0;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_JMPREL: jmprel = dyn_ptr(dyn->d_un.d_ptr, base); break;
        case DT_PLTRELSZ: pltrelsz = dyn->d_un.d_val; break;
        case DT_PLTREL: pltrel = (ElfW(Sxword))dyn->d_un.d_val; break;
        case DT_SYMTAB: symtab = dyn_ptr(dyn->d_un.d_ptr, base); break;
        case DT_STRTAB: strtab = dyn_ptr(dyn->d_un.d_ptr, base); break;
        default: break;
        }
    }
    if (!jmprel || !symtab || !strtab || pltrel != DT_RELA)
        return 1;
    const ElfW(Rela) *r = (const ElfW(Rela) *)jmprel;
    const ElfW(Sym) *syms = (const ElfW(Sym) *)symtab;
    for (size_t i = 0; i < pltrelsz / sizeof(*r); i++) {
        const char *name = (const char *)strtab + syms[REL_SYM(r[i].r_info)].st_name;
        if (!strcmp(name, "ftruncate") || !strcmp(name, "ftruncate64")) {
            o->slot = (ftruncate_fn *)(base + r[i].r_offset);
            break;
        }
    }
    return 1;
}

/* Point the slot at guarded_ftruncate (its page made writable for the
 * store when it lies in the read-only-after-relocation range). */
static void patch(const duck_object *o)
{
    uintptr_t at = (uintptr_t)o->slot;
    bool relro = at >= o->relro_lo && at < o->relro_hi;
    long page_size = sysconf(_SC_PAGESIZE);
    void *page = (void *)(at & ~((uintptr_t)page_size - 1));
    if (relro && mprotect(page, (size_t)page_size, PROT_READ | PROT_WRITE))
        return;
    __atomic_store_n(o->slot, guarded_ftruncate, __ATOMIC_SEQ_CST);
    if (relro)
        mprotect(page, (size_t)page_size, PROT_READ);
    guard_installed = 1;
}

static void install(void)
{
    /* The releases known to abort; a newer DuckDB reverts its own way. */
    if (strncmp(duckdb_library_version(), "v1.4.", 5) != 0)
        return;
    Dl_info info;
    void *open_fn;
    duckdb_state (*f)(const char *, duckdb_database *) = duckdb_open;
    memcpy(&open_fn, &f, sizeof(open_fn));
    if (!dladdr(open_fn, &info) || !info.dli_fname)
        return;
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    void *revert = h ? dlsym(h, REVERT_SYMBOL) : NULL;
    const ElfW(Sym) *sym = NULL;
    Dl_info at;
    if (revert && dladdr1(revert, &at, (void **)&sym, RTLD_DL_SYMENT) && sym &&
        sym->st_size) {
        revert_lo = (uintptr_t)revert;
        revert_hi = revert_lo + sym->st_size;
    }
    if (h)
        dlclose(h);
    void *real = dlsym(RTLD_DEFAULT, "ftruncate");
    if (!revert_hi || !real)
        return;
    memcpy(&real_ftruncate, &real, sizeof(real));
    /* backtrace() loads its unwinder on first use: not inside DuckDB. */
    void *warm[2];
    backtrace(warm, 2);
    duck_object o = { .name = info.dli_fname };
    dl_iterate_phdr(find_slot, &o);
    if (o.slot)
        patch(&o);
}

bool weir__wal_guard_install(void)
{
    pthread_once(&guard_once, install);
    return guard_installed != 0;
}
