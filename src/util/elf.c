/* ELF facts from a file's headers and dynamic section (see elf.h). Bounded reads, no mapping. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llmgate/elf.h"

#define MAX_TABLE (64u << 20) /* a table larger than this is not read */

/* A copy of size bytes at off (NUL-terminated), or NULL. */
static char *read_at(int fd, Elf64_Off off, Elf64_Xword size)
{
    if (size > MAX_TABLE)
        return NULL;
    char *p = malloc(size + 1);
    if (p && pread(fd, p, size, (off_t)off) != (ssize_t)size) {
        free(p);
        return NULL;
    }
    if (p)
        p[size] = '\0';
    return p;
}

static bool has_interp(int fd, const Elf64_Ehdr *eh)
{
    for (int i = 0; i < eh->e_phnum; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(eh->e_phoff + (Elf64_Off)i * eh->e_phentsize)) != (ssize_t)sizeof ph)
            return false;
        if (ph.p_type == PT_INTERP)
            return true;
    }
    return false;
}

/* The string at off in a table of size bytes ("" when out of range). */
static const char *str_at(const char *tab, Elf64_Xword size, Elf64_Xword off) { return off < size ? tab + off : ""; }

static void scan_dynamic(int fd, const Elf64_Shdr *dyn, const Elf64_Shdr *strs, lg_elf_facts *f)
{
    Elf64_Dyn *d = (Elf64_Dyn *)read_at(fd, dyn->sh_offset, dyn->sh_size);
    char *tab = read_at(fd, strs->sh_offset, strs->sh_size);
    for (size_t i = 0; d && tab && i < dyn->sh_size / sizeof *d && d[i].d_tag != DT_NULL; i++) {
        const char *needed = d[i].d_tag == DT_NEEDED ? str_at(tab, strs->sh_size, d[i].d_un.d_val) : "";
        f->needs_curl |= !strncmp(needed, "libcurl", 7);
        f->java |= !strncmp(needed, "libjli.", 7);
    }
    free(d);
    free(tab);
}

static void scan_symbols(int fd, const Elf64_Shdr *sym, const Elf64_Shdr *strs, lg_elf_facts *f)
{
    Elf64_Sym *s = (Elf64_Sym *)read_at(fd, sym->sh_offset, sym->sh_size);
    char *tab = read_at(fd, strs->sh_offset, strs->sh_size);
    for (size_t i = 0; s && tab && i < sym->sh_size / sizeof *s && !f->own_tls; i++) {
        const char *name = str_at(tab, strs->sh_size, s[i].st_name);
        if (s[i].st_shndx != SHN_UNDEF && (!strcmp(name, "SSL_read") || !strcmp(name, "SSL_write")))
            f->own_tls = true;
    }
    free(s);
    free(tab);
}

/* rustls and webpki_roots from the names of the symbol table sym (a Rust program's, not stripped: its
 * mangled names carry the crates' names). */
static void scan_rust(int fd, const Elf64_Shdr *sym, const Elf64_Shdr *strs, lg_elf_facts *f)
{
    Elf64_Sym *s = (Elf64_Sym *)read_at(fd, sym->sh_offset, sym->sh_size);
    char *tab = read_at(fd, strs->sh_offset, strs->sh_size);
    for (size_t i = 0; s && tab && i < sym->sh_size / sizeof *s && !f->webpki_roots; i++) {
        const char *name = str_at(tab, strs->sh_size, s[i].st_name);
        f->rustls |= strstr(name, "rustls") != NULL;
        f->webpki_roots |= strstr(name, "webpki_roots") != NULL;
    }
    free(s);
    free(tab);
}

static void scan_sections(int fd, const Elf64_Ehdr *eh, bool symbols, lg_elf_facts *f)
{
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shstrndx >= eh->e_shnum)
        return;
    Elf64_Shdr *sh = (Elf64_Shdr *)read_at(fd, eh->e_shoff, (Elf64_Xword)eh->e_shnum * sizeof *sh);
    char *names = sh ? read_at(fd, sh[eh->e_shstrndx].sh_offset, sh[eh->e_shstrndx].sh_size) : NULL;
    int symtab = 0;
    for (int i = 0; names && i < eh->e_shnum; i++) {
        const char *name = str_at(names, sh[eh->e_shstrndx].sh_size, sh[i].sh_name);
        if (!strcmp(name, ".go.buildinfo") || !strcmp(name, ".note.go.buildid"))
            f->go = true;
        bool linked = sh[i].sh_link < eh->e_shnum;
        if (sh[i].sh_type == SHT_DYNAMIC && linked)
            scan_dynamic(fd, &sh[i], &sh[sh[i].sh_link], f);
        if (symbols && sh[i].sh_type == SHT_DYNSYM && linked)
            scan_symbols(fd, &sh[i], &sh[sh[i].sh_link], f);
        if (sh[i].sh_type == SHT_SYMTAB && linked)
            symtab = i;
    }
    if (names && symbols && symtab > 0 && !f->go && !f->own_tls && !f->java)
        scan_rust(fd, &sh[symtab], &sh[sh[symtab].sh_link], f);
    free(names);
    free(sh);
}

bool lg_elf_inspect(const char *file, bool symbols, lg_elf_facts *f)
{
    int saved = errno;
    memset(f, 0, sizeof *f);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        errno = saved;
        return false;
    }
    Elf64_Ehdr eh;
    bool ok = pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
              eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB &&
              (eh.e_type == ET_EXEC || eh.e_type == ET_DYN);
    if (ok) {
        f->has_interp = has_interp(fd, &eh);
        scan_sections(fd, &eh, symbols, f);
    }
    close(fd);
    errno = saved;
    return ok;
}
