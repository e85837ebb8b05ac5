/*
 * procmaps.h - one line of /proc/<pid>/maps, parsed (Linux proc(5))
 *
 * The line, as the kernel writes it:
 *
 *	<start>-<end> <perms> <offset> <major>:<minor> <inode> [<path>]
 *
 * start, end, offset, major and minor in hexadecimal, inode in decimal,
 * perms four characters ("r--s": read, write, execute, shared or private).
 * The path is not returned: a file mapping is told by its device and inode.
 */
#ifndef PROCMAPS_H
#define PROCMAPS_H

#include <stddef.h>

#define PROCMAPS_MAJOR_MAX	0xfff	/* the kernel's 12-bit major */
#define PROCMAPS_MINOR_MAX	0xfffff	/* and 20-bit minor */

struct procmaps_entry {
	unsigned long	 start;		/* first address of the mapping */
	unsigned long	 end;		/* one past its last */
	char		 perms[5];	/* "r--s", NUL-terminated */
	unsigned long	 offset;	/* into the file */
	unsigned int	 major;		/* the file's device */
	unsigned int	 minor;
	unsigned long	 inode;		/* the file's inode; 0: anonymous */
};

/*
 * procmaps_parse - parse the line p[0..len) into *e
 *
 * The line may end in '\n' or not.  Each number has at least one digit,
 * nothing else (no sign, space or "0x"), and fits an unsigned long; major
 * and minor are at most PROCMAPS_MAJOR_MAX and PROCMAPS_MINOR_MAX; the
 * inode ends at ' ', '\n' or the end of the input.  Returns 0, or -1 with
 * *e untouched.  Never reads past p[len - 1]; needs no NUL.
 */
int	procmaps_parse(const char *p, size_t len, struct procmaps_entry *e);

#endif
