/* file.h - opening the files solar finds named in other files or folders (a descriptor's
 * "base", a pool's candidates), which must be regular files: a FIFO or a device there would
 * block the run forever, or feed it a stream nobody meant as input; and the path of the
 * executable itself.
 */
#ifndef SOLAR_FILE_H
#define SOLAR_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Opens path for reading without blocking (O_NONBLOCK, then fstat) and returns it as a
 * FILE (blocking again), or NULL with the reason in why: strerror(errno), or "not a regular
 * file (a FIFO)", "(a directory)", "(a device)", "(a socket)". */
FILE *solar_fopen_regular(const char *path, char *why, size_t nwhy);

/* This executable's path (/proc/self/exe) into buf, or "" when it cannot be read: where the
 * installed layout, the translator and the children that run solar again are found. */
void solar_self_exe(char *buf, size_t n);

#endif
