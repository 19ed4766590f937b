/* Debian's SQLite (libsqlite3.a, linked statically with glibc) running a
 * transaction workload on /tmp in rollback-journal mode and in WAL mode,
 * with a second process reading at the same time: what fcntl record
 * locks (and, for WAL, a shared mapping of the -shm file) are for.  A
 * reader must never see half a transaction; a second writer must get
 * SQLITE_BUSY while the first holds the write lock, and get in after. */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

#define TXNS	   40 /* writer transactions per mode */
#define ROWS	   10 /* rows each inserts: a reader must always see a multiple */
#define BUSY_MS	   30000
#define MAX_CHECKS 100000

static char path[64];

static sqlite3 *open_db(int busy_ms)
{
	sqlite3 *db;

	require(sqlite3_open(path, &db) == SQLITE_OK, "sqlite3_open");
	sqlite3_busy_timeout(db, busy_ms);
	return db;
}

/* One integer from a one-row query, or -1. */
static long query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static bool exec_ok(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);

	if (rc != SQLITE_OK)
		diag("%s: %s", sql, err ? err : sqlite3_errstr(rc));
	sqlite3_free(err);
	return rc == SQLITE_OK;
}

/* The reader: reads until it sees every transaction, checking that the
 * row count is always whole transactions and matches the sum.  Exits 0
 * when every read was consistent, 1 otherwise. */
static _Noreturn void reader(void)
{
	sqlite3 *db = open_db(BUSY_MS);
	long n = 0, checks = 0;

	while (n < TXNS * ROWS && checks++ < MAX_CHECKS) {
		long sum;

		if (!exec_ok(db, "BEGIN"))
			_exit(2);
		n = query_int(db, "SELECT count(*) FROM t");
		sum = query_int(db, "SELECT coalesce(sum(v), 0) FROM t");
		if (!exec_ok(db, "COMMIT"))
			_exit(3);
		if (n < 0 || n % ROWS || sum != n) {
			fprintf(stderr, "reader saw %ld rows summing to %ld\n", n, sum);
			_exit(1);
		}
	}
	sqlite3_close(db);
	_exit(n == TXNS * ROWS ? 0 : 4);
}

static bool write_all(sqlite3 *db)
{
	for (int t = 0; t < TXNS; t++) {
		if (!exec_ok(db, "BEGIN IMMEDIATE"))
			return false;
		for (int r = 0; r < ROWS; r++)
			if (!exec_ok(db, "INSERT INTO t(v) VALUES (1)"))
				return false;
		if (!exec_ok(db, "COMMIT"))
			return false;
	}
	return true;
}

/* A second process's BEGIN IMMEDIATE while we hold the write lock: BUSY
 * without a busy timeout, then success once we committed.  The child is
 * forked while we hold no lock: SQLite keeps its per-process lock state in
 * memory, which a fork would copy. */
static void test_busy(sqlite3 *db, const char *mode)
{
	int to_child[2], to_parent[2], status;
	char c = 0;
	pid_t pid;

	require(pipe(to_child) == 0 && pipe(to_parent) == 0, "pipes");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		sqlite3 *other = open_db(0);
		int first;

		if (read(to_child[0], &c, 1) != 1)
			_exit(3);
		first = sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		c = first == SQLITE_BUSY ? 'b' : 'n';
		if (write(to_parent[1], &c, 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(3);
		sqlite3_busy_timeout(other, BUSY_MS);
		_exit(exec_ok(other, "BEGIN IMMEDIATE") && exec_ok(other, "COMMIT") ? 0 : 2);
	}
	require(exec_ok(db, "BEGIN IMMEDIATE"), "BEGIN IMMEDIATE");
	require(write(to_child[1], "t", 1) == 1 && read(to_parent[0], &c, 1) == 1, "handshake");
	is_int(c, 'b', "%s: a second writer gets SQLITE_BUSY while the first holds the lock", mode);
	require(exec_ok(db, "COMMIT") && write(to_child[1], "g", 1) == 1, "COMMIT");
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "%s: and gets in once it committed", mode);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/* The database and whatever journal, WAL or -shm file is left of it. */
static void remove_db(void)
{
	static const char *const suffixes[] = {"", "-journal", "-wal", "-shm"};
	char name[96];

	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
		unlink(name);
	}
}

static void run_mode(const char *mode)
{
	char sql[64], expect[16];
	sqlite3 *db;
	int status;
	pid_t pid;

	snprintf(path, sizeof path, "/tmp/sqlite_tx.%d.db", getpid());
	db = open_db(BUSY_MS);
	snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", mode);
	snprintf(expect, sizeof expect, "%s", mode);
	for (char *s = expect; *s; s++)
		*s = (char)(*s | 0x20); /* SQLite answers in lower case */
	sqlite3_stmt *st;
	const unsigned char *got = NULL;
	require(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "prepare");
	if (sqlite3_step(st) == SQLITE_ROW)
		got = sqlite3_column_text(st, 0);
	ok(got && strcmp((const char *)got, expect) == 0, "%s: journal_mode is %s", mode,
	   got ? (const char *)got : "(none)");
	sqlite3_finalize(st);
	ok(exec_ok(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER)"), "%s: create a table",
	   mode);

	fflush(stdout);
	if ((pid = fork()) == 0)
		reader();
	ok(write_all(db), "%s: %d transactions of %d rows written while a process reads", mode,
	   TXNS, ROWS);
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "%s: the reader saw only whole transactions, then all of them",
	   mode);
	is_int(query_int(db, "SELECT count(*) FROM t"), TXNS * ROWS, "%s: every row is there",
	       mode);
	test_busy(db, mode);
	ok(query_int(
	       db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'") == 1,
	   "%s: integrity_check ok", mode);
	sqlite3_close(db);
	remove_db();
}

int main(void)
{
	plan(16);
	run_mode("DELETE");
	run_mode("WAL");
	return done();
}
