/* Writing a command's standard output into a file that is replaced atomically (node_exporter textfiles). */
#ifndef LLMGATE_CLI_TEXTFILE_H
#define LLMGATE_CLI_TEXTFILE_H

#include <stdbool.h>

typedef struct {
    const char *path;  /* the file to replace */
    char *tmp;         /* the temporary file beside it */
    int fd;            /* open on tmp */
    int saved_stdout;  /* the original standard output */
} lg_textfile;

/* Creates a temporary file in path's directory and points standard output at it. False (after a message on
 * stderr) when that fails; stdout is then unchanged. */
bool lg_textfile_begin(lg_textfile *t, const char *path);
/* Restores standard output; when commit is true, flushes the temporary file to disk, makes it 0644 and
 * renames it over path, else removes it (path keeps its old content). True when path was replaced. */
bool lg_textfile_end(lg_textfile *t, bool commit);

#endif
