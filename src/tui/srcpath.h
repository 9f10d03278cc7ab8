/* Where a source file named by DWARF (its build-time path) is on this
 * machine: prefix maps (`srcpath map FROM TO`, --srcpath FROM=TO) tried in
 * the order given, then the path itself, then each search directory
 * (`srcpath add DIR`, --srcpath DIR) with the path's trailing components,
 * longest first. No terminal. */
#ifndef TUI_SRCPATH_H
#define TUI_SRCPATH_H

#include <stddef.h>

struct tui_srcpath_map {
	char *from, *to;
};

struct tui_srcpath {
	struct tui_srcpath_map *maps;
	size_t nmaps, maps_cap;
	char **dirs;
	size_t ndirs, dirs_cap;
};

void tui_srcpath_init(struct tui_srcpath *p);
void tui_srcpath_fini(struct tui_srcpath *p);
/* 0, -EINVAL (an empty or relative FROM/TO/DIR), -ENOMEM. A trailing '/'
 * is dropped; a map for a FROM already mapped replaces it. */
int tui_srcpath_map(struct tui_srcpath *p, const char *from, const char *to);
int tui_srcpath_add(struct tui_srcpath *p, const char *dir);
/* A --srcpath value: FROM=TO or DIR. */
int tui_srcpath_arg(struct tui_srcpath *p, const char *arg);
/* The first candidate path that `exists` accepts, malloc'd, or NULL.
 * exists is access(2)-like (0: there); NULL uses access(R_OK). */
char *tui_srcpath_find(const struct tui_srcpath *p, const char *path,
		       int (*exists)(const char *path));
/* The candidates in the order tried, for a message: writes up to max
 * malloc'd strings into out, returns how many. */
size_t tui_srcpath_candidates(const struct tui_srcpath *p, const char *path, char **out,
			      size_t max);

#endif /* TUI_SRCPATH_H */
