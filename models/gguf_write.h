/* Streaming GGUF v3 writer: the format gguf.h reads (ggml's docs/gguf.md), written without the
 * tensors' data ever being in memory together.
 *
 * Order of use:
 *   1. bb_gguf_writer_create(path)
 *   2. metadata (bb_gguf_set_*) and tensor declarations (bb_gguf_add_tensor: name, ggml type,
 *      shape) in any mix; each tensor's size follows from its shape and type (gguf_types.h) and its
 *      offset is laid out at once, every tensor starting at a multiple of the alignment;
 *   3. the data, tensor after tensor in declaration order (bb_gguf_write_data, any number of
 *      pieces per tensor): the first call writes the header (magic, version 3, counts, the
 *      metadata, the tensor infos, padding to the alignment) and no more metadata or tensors may
 *      be added after it; each tensor is followed by zero padding to the alignment;
 *   4. bb_gguf_writer_finish: checks that every tensor got all its bytes and renames the file,
 *      written beside path (support/output_file.h), over path.  On any error, a kill, or
 *      bb_gguf_writer_abort, path stays as it was (absent, or the previous file) and the partial
 *      temporary file is removed; a path that is not a regular file is refused by create.
 *
 * Every count, size and offset is overflow-checked; the first error sticks (later calls return
 * -1 at once) and is one line naming the file and the key or tensor:
 *     "out.gguf: tensor 'blk.0.attn_q.weight': row length 100 is not a multiple of Q4_0's block 32"
 * Keys and tensor names must be unique, non-empty, and (tensor names, as ggml requires) shorter
 * than 64 bytes. */
#ifndef BB_GGUF_WRITE_H
#define BB_GGUF_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gguf.h"

typedef struct bb_gguf_writer bb_gguf_writer;

/* Start writing path (through a temporary file beside it).  NULL with one line in err when path
 * is not a regular file or its folder cannot take a new file. */
bb_gguf_writer *bb_gguf_writer_create(const char *path, char *err, size_t errlen);

/* Metadata.  Each returns 0, or -1 with the writer's error set. */
int bb_gguf_set_u32(bb_gguf_writer *w, const char *key, uint32_t v);
int bb_gguf_set_i32(bb_gguf_writer *w, const char *key, int32_t v);
int bb_gguf_set_u64(bb_gguf_writer *w, const char *key, uint64_t v);
int bb_gguf_set_f32(bb_gguf_writer *w, const char *key, float v);
int bb_gguf_set_bool(bb_gguf_writer *w, const char *key, bool v);
int bb_gguf_set_str(bb_gguf_writer *w, const char *key, const char *v);
/* An array of count fixed-size elements of type elem (any scalar type: UINT8 ... FLOAT64, BOOL),
 * little endian, back to back at elems. */
int bb_gguf_set_array(bb_gguf_writer *w, const char *key, bb_gguf_vtype elem, const void *elems, uint64_t count);
/* An array of count NUL-terminated strings. */
int bb_gguf_set_str_array(bb_gguf_writer *w, const char *key, const char *const *strs, uint64_t count);
/* A key/value pair of an open GGUF file, copied as it is (a nested array is refused). */
int bb_gguf_copy_kv(bb_gguf_writer *w, const bb_gguf_kv *kv);
/* general.alignment (a power of two, at least 8 as gguf.md asks); the default is 32. */
int bb_gguf_set_alignment(bb_gguf_writer *w, uint32_t alignment);

/* Declare a tensor: ne in ggml order (ne[0] is the row length, a multiple of the type's
 * block), n_dims 1..4, each at least 1. */
int bb_gguf_add_tensor(bb_gguf_writer *w, const char *name, uint32_t ggml_type, int n_dims, const uint64_t *ne);

/* Append bytes to the current tensor (the first not yet complete); more than it has left is an
 * error naming it. */
int bb_gguf_write_data(bb_gguf_writer *w, const void *data, size_t bytes);

/* The tensor the next data goes to (NULL when all are complete), and its size in bytes. */
const char *bb_gguf_writer_current(const bb_gguf_writer *w, uint64_t *bytes);
/* Declared so far: the file's total size once everything is written. */
uint64_t bb_gguf_writer_file_size(const bb_gguf_writer *w);
/* The sticky error ("" when none). */
const char *bb_gguf_writer_error(const bb_gguf_writer *w);

/* Finish and replace path; returns 0, or -1 with one line in err (then path is unchanged).
 * Frees w. */
int bb_gguf_writer_finish(bb_gguf_writer *w, char *err, size_t errlen);
/* Close and remove the partial temporary file (path is unchanged), free w. */
void bb_gguf_writer_abort(bb_gguf_writer *w);

#endif
