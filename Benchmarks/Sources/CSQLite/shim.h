// The system SQLite, for the benchmarks' baseline: `apt-get install libsqlite3-dev` on Debian.
#include <sqlite3.h>
