#ifndef CSQLITEOPTIONS_H
#define CSQLITEOPTIONS_H

#include <stdint.h>

/// Makes the SQLite connection `db` (a `sqlite3 *`) leave the WAL as it is when it closes, instead of copying it
/// into the database file (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`). `sqlite3_db_config` is variadic, so Swift cannot
/// call it. Returns SQLite's result code.
int monitor_sqlite3_no_checkpoint_on_close(void *db);

/// Binds `length` bytes of UTF-8 at `text` to parameter `index` (from 1) of the statement `statement` (a
/// `sqlite3_stmt *`), copied by SQLite (`SQLITE_TRANSIENT`, a macro Swift cannot import): the bytes need live only
/// for the call. An empty text (`length` 0, `text` possibly NULL) binds the empty text, never NULL. Returns SQLite's
/// result code.
int monitor_sqlite3_bind_text(void *statement, int index, const char *text, int length);

/// Binds `value` to parameter `index` of `statement`. Returns SQLite's result code.
int monitor_sqlite3_bind_double(void *statement, int index, double value);

/// Binds `value` to parameter `index` of `statement`. Returns SQLite's result code.
int monitor_sqlite3_bind_int64(void *statement, int index, int64_t value);

/// Binds NULL to parameter `index` of `statement`. Returns SQLite's result code.
int monitor_sqlite3_bind_null(void *statement, int index);

/// Runs `statement` (one that returns no rows, such as an `INSERT`) to its end, then resets it and clears its
/// bindings. Returns `SQLITE_DONE` (101) when it ran, else SQLite's error code; on an error `message` (when not
/// NULL) is set to a copy of SQLite's message, to be freed with `monitor_sqlite3_free`.
int monitor_sqlite3_run(void *statement, char **message);

/// Frees a message of `monitor_sqlite3_run`.
void monitor_sqlite3_free(void *message);

#endif
