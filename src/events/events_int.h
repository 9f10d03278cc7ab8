/* Internals of the events layer shared between its files. */
#ifndef GS_EVENTS_INT_H
#define GS_EVENTS_INT_H

/* The readable form of a mangled C++ or Rust symbol (malloc'd), or NULL
 * when name is not one (demangle.c). */
char *ev_demangle(const char *name);

#endif /* GS_EVENTS_INT_H */
