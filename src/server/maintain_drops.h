/*
 * maintain_drops.h
 *	  Chunks of maintained readings dropped without a DDL event
 *	  (maintain_drops.c): what set-up on a hypertable needs for them.
 */
#ifndef MAINTAIN_DROPS_H
#define MAINTAIN_DROPS_H

/*
 * Refuses (55000) readings that are a TimescaleDB hypertable unless segpipe
 * was loaded by shared_preload_libraries.
 */
extern void maintain_drops_require_preload(Oid readings);

#endif							/* MAINTAIN_DROPS_H */
