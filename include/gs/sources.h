/* The source files of modules, as their DWARF line tables name them: the
 * file list the interactive mode browses, the lines that have code (where
 * a `trace FILE:LINE` resolves), and the function whose code a line is in.
 * The file list is read from the line tables' file names at once; each
 * file's lines and functions are read the first time they are asked for.
 * Owned by the dwarf layer. */
#ifndef GS_SOURCES_H
#define GS_SOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/error.h>
#include <gs/modfile.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_sources;

/* An empty index in *out, freed with gs_sources_free() (NULL is fine),
 * before the module files added to it. 0, or -ENOMEM with err filled and
 * *out NULL. One thread at a time: lookups read and keep. */
GS_API int gs_sources_new(struct gs_sources **out, struct gs_error *err);
GS_API void gs_sources_free(struct gs_sources *s);
/* Adds the files of m's DWARF (through its separate debug file when it has
 * one) that some line-table row refers to, each once (by its path: the
 * comp_dir joined with the file name, normalized). A module without DWARF
 * adds nothing and is not an error. m is borrowed: it (and its cache)
 * outlives s. 0, -ENOMEM, or -EINVAL for DWARF that does not read (err
 * names the module). */
GS_API int gs_sources_add_module(struct gs_sources *s, struct gs_modfile *m,
				 struct gs_error *err);

/* Files sorted by path: their count, and file i's path (NULL for i past
 * the last), owned by s. */
GS_API size_t gs_sources_count(const struct gs_sources *s);
GS_API const char *gs_sources_path(const struct gs_sources *s, size_t i);
/* The module (its path) whose DWARF names file i (the first one added),
 * or NULL for i past the last; valid while that module file is. */
GS_API const char *gs_sources_module(const struct gs_sources *s, size_t i);
/* The index of the file whose path is path or ends in "/" path (the
 * shortest such path), or -1. */
GS_API long gs_sources_find(const struct gs_sources *s, const char *path);

/* Lines of file i that have code (a line-table row with is_stmt), sorted
 * and unique, in *lines and *n (owned by s, valid until gs_sources_free).
 * 0, or -EINVAL for i past the last / -ENOMEM, with err filled. */
GS_API int gs_sources_lines(struct gs_sources *s, size_t i, const uint32_t **lines, size_t *n,
			    struct gs_error *err);
/* The function (its DWARF name; a C++/Rust one demangled when DWARF gives
 * only the linkage name) whose code in file i spans line: its first and
 * last line there. NULL when none. Valid until gs_sources_free. */
GS_API const char *gs_sources_function_at(struct gs_sources *s, size_t i, uint32_t line,
					  uint32_t *first, uint32_t *last);

#ifdef __cplusplus
}
#endif

#endif /* GS_SOURCES_H */
