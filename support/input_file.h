/* Opening a file someone else handed us: only regular files, only up to a stated size.
 *
 * Every reader of a user's file (models, tokenizers, texts, configs, results, run.json, the Lua
 * sandbox's io) opens it here, so that a FIFO or a character device never blocks a reader forever
 * and /dev/zero or a huge text never reads until the machine runs out of memory (issue 29).  The
 * open itself cannot block: it is made with O_NONBLOCK (a FIFO with no writer would otherwise wait
 * in open()), and the flag is cleared once fstat() has shown a regular file. */
#ifndef BB_INPUT_FILE_H
#define BB_INPUT_FILE_H

#include <stdint.h>
#include <stdio.h>

/* No size bound (the reader bounds what it reads itself, as the GGUF and checkpoint readers do
 * against the file's own size). */
#define BB_INPUT_ANY_SIZE UINT64_MAX

/* Opens path for reading ("rb").  Refuses, with one line in err naming the file and what it is,
 * anything that is not a regular file (directory, FIFO, socket, device) and a regular file larger
 * than max_bytes.  `what` names the file's role in the message ("text", "tokenizer"); may be NULL.
 * *size (may be NULL) gets the file's size.  NULL on refusal or failure. */
FILE *bb_input_open(const char *path, const char *what, uint64_t max_bytes, uint64_t *size, char *err,
                    size_t errlen);

/* The same check on a descriptor already open (for readers that mmap or use open() themselves):
 * 0 when fd is a regular file of at most max_bytes, else -1 with the line in err. */
int bb_input_check_fd(int fd, const char *path, const char *what, uint64_t max_bytes, uint64_t *size,
                      char *err, size_t errlen);

/* The whole file, NUL-terminated and malloc'd (*len without the NUL, may be NULL), with the same
 * refusals; NULL on refusal or failure. */
char *bb_input_read_all(const char *path, const char *what, uint64_t max_bytes, size_t *len, char *err,
                        size_t errlen);

/* "a FIFO", "a directory", "a character device", ...: what a st_mode is, for messages. */
const char *bb_file_kind(unsigned mode);

#endif
