/*
 * maintain_drops.h
 *	  Chunks of maintained readings dropped without a DDL event
 *	  (maintain_drops.c): what set-up on a hypertable needs for them, and
 *	  whether readings are a hypertable (whose chunks take no triggers).
 */
#ifndef MAINTAIN_DROPS_H
#define MAINTAIN_DROPS_H

/*
 * Refuses (55000) readings that are a TimescaleDB hypertable unless segpipe
 * was loaded by shared_preload_libraries.
 */
extern void maintain_drops_require_preload(Oid readings);

/*
 * Whether rel is a TimescaleDB hypertable: its chunks take no triggers with
 * transition tables, and the hypertable's see their rows.
 */
extern bool maintain_drops_hypertable(Oid rel);

#endif							/* MAINTAIN_DROPS_H */
