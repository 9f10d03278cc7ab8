/* What the public headers share: GS_API marks every declaration libgs
 * exports. The library is built with -fvisibility=hidden, so a function
 * without it stays internal even when its name starts with gs_, and the
 * symbol check (tests/lib) compares the exports with these markers. */
#ifndef GS_API_H
#define GS_API_H

#if defined(__GNUC__) || defined(__clang__)
#define GS_API __attribute__((visibility("default")))
#else
#define GS_API
#endif

#endif /* GS_API_H */
