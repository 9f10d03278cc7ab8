/* The tables a pprof profile is made of (pprof.c) and the one way frames
 * enter them (pprof_location), whatever reads the frames: user backtraces
 * through gs_frames (pprof_frames.c), and any later source of frames. */
#ifndef GS_EVENTS_PPROF_INT_H
#define GS_EVENTS_PPROF_INT_H

#include <stddef.h>
#include <stdint.h>

#include <gs/pprof.h>

/* One line of a location: a function (name as shown, name as linked,
 * source file; NULLs: unknown; the line it starts at, 0: unknown) and the
 * line in it (0: unknown). */
struct pprof_line {
	const char *name, *system_name, *file;
	int64_t line, start_line;
};

/* A mapping: a file's segment at [start, limit), file_offset its first
 * byte's offset in the file, build_id the GNU build id in hex ("" none). */
struct pprof_map {
	const char *file, *build_id;
	uint64_t start, limit, file_offset;
};

/* The id of the location at (map, address) (map NULL: no mapping), made
 * with lines (innermost call first, n may be 0: unsymbolized) the first
 * time it is asked; 0 when out of memory. */
uint64_t pprof_location(struct gs_pprof *p, const struct pprof_map *map, uint64_t address,
			const struct pprof_line *lines, size_t n);
/* The id of the string labels gs_pprof_opts.labels gives ev (0: none, or
 * no callback); the profile's tables hold them from then on. 0 also
 * without memory (sticky: the write then fails). */
uint64_t pprof_labels(struct gs_pprof *p, const struct gs_event *ev);
/* Counts a stack (location ids, leaf first) with its labels n times.
 * 0 or -ENOMEM. */
int pprof_sample(struct gs_pprof *p, const uint64_t *locs, size_t nlocs, uint32_t pid,
		 uint32_t tid, uint64_t trace, uint64_t labels, uint64_t n);
/* The profile's frame resolver. */
struct gs_frames *pprof_frames(struct gs_pprof *p);

#endif /* GS_EVENTS_PPROF_INT_H */
