#ifndef CSQLITEOPTIONS_H
#define CSQLITEOPTIONS_H

/// Makes the SQLite connection `db` (a `sqlite3 *`) leave the WAL as it is when it closes, instead of copying it
/// into the database file (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`). `sqlite3_db_config` is variadic, so Swift cannot
/// call it. Returns SQLite's result code.
int monitor_sqlite3_no_checkpoint_on_close(void *db);

#endif
