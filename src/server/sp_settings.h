/*
 * sp_settings.h
 *	  Fixed settings in force for a stretch of C code, set only where the
 *	  session's differ.
 *
 * Key I/O and the maintained insert trigger's statements are written for
 * fixed settings, whatever the session has.  Setting one costs a check, an
 * assignment and, at the end, its undoing; a setting that already shows the
 * fixed value is left alone, so a session that has them pays nothing.
 */
#ifndef SP_SETTINGS_H
#define SP_SETTINGS_H

typedef struct SpSetting
{
	const char *name;
	const char *value;			/* as SHOW displays it */
} SpSetting;

/*
 * Put settings[i], for each bit i of mask, in force until sp_settings_end
 * (or the transaction's abort); returns what to pass to it, 0 when nothing
 * was set.
 */
extern int	sp_settings_begin(const SpSetting *settings, int n, uint32 mask);
extern void sp_settings_end(int nest);

#define SP_SETTINGS_ALL(n) ((uint32) ((1 << (n)) - 1))

#endif							/* SP_SETTINGS_H */
