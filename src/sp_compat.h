/*
 * sp_compat.h
 *	  What differs between the PostgreSQL majors segpipe builds against
 *	  (15 to 18), in one place: the rest of the code is written once, and
 *	  its bytes on disk and on the wire are the same on every major
 *	  (docs/versions.md).
 *
 * Include after "postgres.h".
 */
#ifndef SP_COMPAT_H
#define SP_COMPAT_H

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "segpipe supports PostgreSQL 15, 16, 17 and 18; this server's headers are of another major (pg_config --version)"
#endif

/*
 * 16 moved the varlena macros (VARDATA, VARSIZE, SET_VARSIZE, VARDATA_ANY,
 * VARATT_IS_EXTERNAL...) out of postgres.h into varatt.h.
 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * A function that does not return.  18 replaced pg_attribute_noreturn()
 * (written after the declarator or before the name) by pg_noreturn, a
 * function specifier: written first, "SP_NORETURN static void f(...)" and
 * "SP_NORETURN extern void f(...)" suit every major.
 */
#if PG_VERSION_NUM >= 180000
#define SP_NORETURN pg_noreturn
#else
#define SP_NORETURN pg_attribute_noreturn()
#endif

/*
 * The module's magic block.  From 18 on it also names the library and its
 * version (pg_get_loaded_modules()); SEGPIPE_VERSION comes from
 * segpipe.control's default_version through the Makefile.
 */
#if PG_VERSION_NUM >= 180000
#ifndef SEGPIPE_VERSION
#error "SEGPIPE_VERSION is not defined: build with segpipe's Makefile"
#endif
#define SP_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "segpipe", .version = SEGPIPE_VERSION)
#else
#define SP_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/*
 * Updating a heap tuple in place of the executor (maintain_state.c), and
 * which indexes then take the new version.  16 made simple_heap_update say
 * it (none, all, or only the summarizing ones such as BRIN, which 16 lets
 * a heap-only update reach) and ExecInsertIndexTuples take onlySummarizing;
 * on 15 a heap-only version takes no index entry, any other all.  Both
 * macros need access/heapam.h and executor/executor.h.
 */
#if PG_VERSION_NUM >= 160000
#define SP_HEAP_UPDATE(rel, otid, tup, all, summarizing) \
	do { \
		TU_UpdateIndexes sp_u_; \
		simple_heap_update((rel), (otid), (tup), &sp_u_); \
		*(all) = (sp_u_ == TU_All); \
		*(summarizing) = (sp_u_ == TU_Summarizing); \
	} while (0)
#define SP_INSERT_INDEX_TUPLES(rri, slot, estate, only_summarizing) \
	ExecInsertIndexTuples((rri), (slot), (estate), false, false, NULL, NIL, (only_summarizing))
#else
#define SP_HEAP_UPDATE(rel, otid, tup, all, summarizing) \
	do { \
		simple_heap_update((rel), (otid), (tup)); \
		*(all) = !HeapTupleIsHeapOnly(tup); \
		*(summarizing) = false; \
	} while (0)
#define SP_INSERT_INDEX_TUPLES(rri, slot, estate, only_summarizing) \
	ExecInsertIndexTuples((rri), (slot), (estate), false, false, NULL, NIL)
#endif

/*
 * Whether a role owns a relation: 16 folded the per-class ownership checks
 * into object_ownercheck.  Needs utils/acl.h (and catalog/pg_class.h on 16+).
 */
#if PG_VERSION_NUM >= 160000
#define SP_CLASS_OWNERCHECK(relid, role) object_ownercheck(RelationRelationId, (relid), (role))
#else
#define SP_CLASS_OWNERCHECK(relid, role) pg_class_ownercheck((relid), (role))
#endif

/*
 * A relation's primary key index: 18 asks whether a deferrable one counts
 * (it does not here: the state tables' keys are made immediate).  Needs
 * utils/relcache.h.
 */
#if PG_VERSION_NUM >= 180000
#define SP_PRIMARY_KEY_INDEX(rel) RelationGetPrimaryKeyIndex((rel), false)
#else
#define SP_PRIMARY_KEY_INDEX(rel) RelationGetPrimaryKeyIndex(rel)
#endif

#endif							/* SP_COMPAT_H */
