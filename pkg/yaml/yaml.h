/*
 * yaml.h - YAML streams to cJSON trees and back, typed the way kubectl
 * (sigs.k8s.io/yaml on top of go-yaml v2) types them.
 *
 * Decoding (libyaml events -> cJSON):
 *  - A stream holds any number of documents separated by "---".  Documents
 *    that decode to null (empty, comment-only, "~", "null") are skipped,
 *    as kubectl skips them.  Anchors are local to a document.
 *  - Plain (unquoted) scalars are resolved as go-yaml v2 resolves them:
 *      null:  "" (no value), ~, null, Null, NULL
 *      bool:  true/True/TRUE, false/False/FALSE, yes/Yes/YES, no/No/NO,
 *             on/On/ON, off/Off/OFF, and y/Y/n/N (YAML 1.1, go-yaml v2:
 *             kubectl quotes "y" and "n" on output for this reason)
 *      int:   decimal, 0x hex, 0o and leading-0 octal, 0b binary, an
 *             optional sign, '_' separators ignored (1_000 = 1000);
 *             anything up to uint64 max
 *      float: [-+](.digits|digits[.digits])[e[-+]digits] ('_' ignored),
 *             .inf/.Inf/.INF with optional sign, .nan/.NaN/.NAN
 *      everything else is a string, including timestamps (2001-12-14
 *      stays a string, as go-yaml v2 keeps it for interface{} targets),
 *      "08" (invalid octal, but a valid float: 8) and "1e400" (overflows,
 *      so a string).
 *    Quoted, literal (|) and folded (>) scalars are strings.  Tags !!str,
 *    !!int, !!float, !!bool, !!null are honoured (a mismatch such as
 *    "!!int abc" is an error); other tags are ignored; !!binary is refused.
 *  - Infinity and NaN are refused (TS_EPARSE): JSON cannot represent them
 *    and kubectl fails on them too ("json: unsupported value: +Inf").
 *  - Integers whose magnitude exceeds 2^53 cannot be held exactly by a
 *    cJSON number (a double).  They become cJSON_Raw nodes whose
 *    valuestring is the exact decimal text (valuedouble holds the nearest
 *    double), so cJSON_Print writes them exactly; read them with
 *    ts_json_get_i64().  All other numbers are cJSON numbers.
 *  - Map keys become strings as sigs.k8s.io/yaml converts them: ints in
 *    decimal, floats in go's shortest float32 form (1.5, 1e+06), bools as
 *    "true"/"false" (so a plain key `y:` or `on:` becomes "true"), .inf as
 *    ".inf".  A null key or a mapping/sequence used as a key is an error.
 *    Differences: uint64 keys are written in decimal (sigs.k8s.io/yaml
 *    rejects them).
 *  - Duplicate keys are an error (also two keys that convert to the same
 *    string, e.g. `1:` and `"1":`).
 *  - Merge keys: "<<" (plain) takes a mapping, an alias of one, or a
 *    sequence of them.  Keys written in the mapping win over merged keys
 *    wherever they appear (YAML merge spec; go-yaml v2 let a later "<<"
 *    overwrite earlier keys); among merged mappings the earlier one wins.
 *    Merged keys never count as duplicates.
 *  - Limits: nesting depth TS_YAML_MAX_DEPTH; aliases may add at most
 *    100000 nodes plus 10 times the nodes written out (alias bombs fail
 *    with TS_EOVERFLOW); strings holding NUL ("\0") are refused.
 *
 * Line map: every document keeps the line of each node, found by a field
 * path (json/json.h syntax: "spec.resourceGroups[0].flavors[1].name",
 * "metadata.annotations[kueue.x-k8s.io/queue-name]").  A map member's line
 * is its key's line; a sequence item's line is where the item starts.  The
 * map is separate from the tree, so it stays valid if the tree is changed
 * or taken.
 *
 * Encoding (cJSON -> YAML, through libyaml's emitter as go-yaml does):
 * 2-space indent, sequences not indented under their key ("- " at the
 * key's column), empty collections as {} and [], long plain strings folded
 * at 80 columns as kubectl does.  Strings stay plain unless they would read
 * back as another type or as a timestamp or base-60 number ("true", "1",
 * "", "1e3", "y", "null", "2001-12-14", "1:20") -> double quoted; or
 * contain characters plain style cannot hold (": ", " #", leading '*', '&',
 * '!', spaces at either end) -> single quoted; multi-line strings become
 * literal blocks (|, |-, |+), or double quoted when a block cannot hold
 * them (a space before a line break, CR, NEL, LS, PS, control
 * characters).  Output matches kubectl -o yaml byte for byte on the
 * goldens in test/data/yaml.  Numbers: integral values up to 2^53 as
 * integers (-0 as 0), others in go's shortest 'g' form (0.1, 1e-07,
 * 1.5e+20); raw integer nodes as their text.
 * Round trip: decode(encode(x)) equals x for every JSON tree x, except
 * that a top-level null reads back as no document and -0 as 0.
 *
 * Errors (TS_EPARSE, TS_EOVERFLOW, TS_EUNSUPPORTED) read
 * "<name>:<line>:<col>: <problem>", or "yaml: line <line> column <col>:
 * <problem>" when no name was given.  Lines and columns are 1-based.
 *
 * Thread rule: no shared state; a stream belongs to one thread at a time.
 */
#ifndef TS_YAML_H
#define TS_YAML_H

#include <cJSON.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

#define TS_YAML_MAX_DEPTH 1000

struct ts__yaml_loc; /* private: per-node line map */

struct ts_yaml_doc {
    cJSON *root;               /* owned by the stream; never NULL, never JSON null */
    int line;                  /* 1-based line where the root node starts */
    char *name;                /* name given to the decoder (owned) or NULL */
    struct ts__yaml_loc *locs; /* private: the line map */
};

struct ts_yaml_stream {
    struct ts_yaml_doc *docs;
    size_t n;
    size_t cap;
    int err_line; /* position of the last decode error (0 = none) */
    int err_col;
};

/* clang-format off */
#define TS_YAML_STREAM_INIT {NULL, 0, 0, 0, 0}
/* clang-format on */

/* Initialises an empty stream (same as TS_YAML_STREAM_INIT). */
void ts_yaml_stream_init(struct ts_yaml_stream *s);

/* Frees every document (trees, line maps, names), leaving s empty.
 * Ownership: pointers taken from the documents become invalid, except
 * roots moved out with ts_yaml_doc_take(). */
void ts_yaml_stream_release(struct ts_yaml_stream *s);

/* Decodes the YAML stream data[0..len) and appends its non-null documents
 * to out.  `name` (e.g. a file name, may be NULL) prefixes error messages
 * and is copied.  Returns 0, TS_EPARSE (syntax or typing error, with the
 * position in err and out->err_line/err_col), TS_EUNSUPPORTED (!!binary)
 * or TS_EOVERFLOW (depth or alias limits).  On failure out keeps no
 * document from this call.  Ownership: out owns the documents; release it
 * with ts_yaml_stream_release(). */
int ts_yaml_decode(const char *data, size_t len, const char *name, struct ts_yaml_stream *out,
                   struct ts_err *err);

/* Reads the file at `path` (at most 64 MiB) and decodes it with the path
 * as the name.  Returns the codes of ts_yaml_decode(), or TS_EIO /
 * TS_EOVERFLOW (file too large).  Ownership: as ts_yaml_decode(). */
int ts_yaml_decode_file(const char *path, struct ts_yaml_stream *out, struct ts_err *err);

/* Decodes a stream that must hold exactly one non-null document and
 * returns its tree.  Returns 0, the codes of ts_yaml_decode(), or
 * TS_EINVAL when there are zero or several documents.
 * Ownership: caller frees *out with cJSON_Delete(); NULL on failure. */
int ts_yaml_decode_one(const char *data, size_t len, cJSON **out, struct ts_err *err);

/* Returns the 1-based line of the node at `path` in doc.  When the path
 * does not exist (or is malformed), returns the line of the deepest node
 * on it that exists, so a message about a missing field points at its
 * parent; "" gives doc->line. */
int ts_yaml_doc_line(const struct ts_yaml_doc *doc, const char *path);

/* Formats an error about the field at `path`:
 *   "<name>:<line>: <path>: <message>" ("line <line>: ..." without a
 *   name; the path part is left out when path is "").
 * Returns `code` (idiom: return ts_yaml_doc_err(doc, "spec.x", err,
 * TS_EINVAL, "must be positive");). */
int ts_yaml_doc_err(const struct ts_yaml_doc *doc, const char *path, struct ts_err *err, int code,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Moves the tree out of doc; doc->root becomes NULL (the line map stays).
 * Ownership: caller frees the result with cJSON_Delete(). */
cJSON *ts_yaml_doc_take(struct ts_yaml_doc *doc);

enum ts_yaml_encode_flags {
    /* map keys in kubectl's order: go-yaml's natural sort, non-letters
     * first, digit runs by value ("a9" < "a10"); go's comparison is not
     * transitive for some keys mixing leading zeros and letters ("01",
     * "0a", "1"), where the order may differ from kubectl's */
    TS_YAML_SORT_KEYS = 1 << 0,
};

/* Appends `root` as one YAML document (no "---", ends with a newline) to
 * out.  Keys stay in tree order unless TS_YAML_SORT_KEYS.  Returns 0,
 * TS_EINVAL (a node YAML cannot express: invalid UTF-8, a raw node that is
 * not an integer, a non-finite number) or TS_EOVERFLOW (out's cap).
 * Ownership: root is borrowed; out stays owned by the caller. */
int ts_yaml_encode(const cJSON *root, unsigned flags, struct ts_buf *out, struct ts_err *err);

/* Appends n documents separated by "---" lines (the first one without).
 * Returns the codes of ts_yaml_encode().  Ownership: as ts_yaml_encode(). */
int ts_yaml_encode_stream(const cJSON *const *roots, size_t n, unsigned flags, struct ts_buf *out,
                          struct ts_err *err);

#endif
