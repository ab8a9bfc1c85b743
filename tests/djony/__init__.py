"""djony's own tests, Pony's side of the bridge: the mapping, its system checks and command,
the connection, transactions, queries, types, relations, deletions, entity objects,
threads, the backends and drivers, and database routers."""
