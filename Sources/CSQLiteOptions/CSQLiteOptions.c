#include "CSQLiteOptions.h"

#include <sqlite3.h>

int monitor_sqlite3_no_checkpoint_on_close(void *db) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

int monitor_sqlite3_bind_text(void *statement, int index, const char *text, int length) {
    // A NULL pointer would bind NULL: an empty text is bound from a static empty string instead.
    return sqlite3_bind_text((sqlite3_stmt *)statement, index, length > 0 ? text : "", length, SQLITE_TRANSIENT);
}

int monitor_sqlite3_bind_double(void *statement, int index, double value) {
    return sqlite3_bind_double((sqlite3_stmt *)statement, index, value);
}

int monitor_sqlite3_bind_int64(void *statement, int index, int64_t value) {
    return sqlite3_bind_int64((sqlite3_stmt *)statement, index, (sqlite3_int64)value);
}

int monitor_sqlite3_bind_null(void *statement, int index) {
    return sqlite3_bind_null((sqlite3_stmt *)statement, index);
}

int monitor_sqlite3_run(void *statement, char **message) {
    sqlite3_stmt *stmt = (sqlite3_stmt *)statement;
    int code;
    while ((code = sqlite3_step(stmt)) == SQLITE_ROW) {
    }
    if (code != SQLITE_DONE && message) {
        *message = sqlite3_mprintf("%s", sqlite3_errmsg(sqlite3_db_handle(stmt)));
    }
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return code;
}

void monitor_sqlite3_free(void *message) {
    sqlite3_free(message);
}
