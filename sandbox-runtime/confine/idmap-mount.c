/*
 * idmap-mount <user namespace> <source> <target> [<source> <target>...]
 *
 * Mounts at each <target> a clone of <source> whose owners are shown through <user namespace>'s
 * id map (an idmapped mount: open_tree, mount_setattr with MOUNT_ATTR_IDMAP, move_mount), in the
 * caller's mount namespace: how the files on disk, owned by the shared range, appear owned by a
 * sandbox's own range (user-namespace.ts). util-linux's mount does this as `X-mount.idmap` from
 * 2.39 on; Debian 12 has 2.38. Run by the host's root in a sandbox's private mount namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static int fail(const char *what, const char *path) {
  fprintf(stderr, "orrery-idmap-mount: %s %s: %s\n", what, path, strerror(errno));
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc % 2 != 0) {
    fprintf(stderr, "usage: idmap-mount <user namespace> <source> <target> [<source> <target>...]\n");
    return 2;
  }
  int userns = open(argv[1], O_RDONLY | O_CLOEXEC);
  if (userns < 0) return fail("open", argv[1]);
  struct mount_attr attr = {.attr_set = MOUNT_ATTR_IDMAP, .userns_fd = (unsigned int)userns};
  for (int i = 2; i < argc; i += 2) {
    int tree = open_tree(AT_FDCWD, argv[i], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (tree < 0) return fail("open_tree", argv[i]);
    if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0)
      return fail("mount_setattr", argv[i]);
    if (move_mount(tree, "", AT_FDCWD, argv[i + 1], MOVE_MOUNT_F_EMPTY_PATH) != 0)
      return fail("move_mount", argv[i + 1]);
    close(tree);
  }
  return 0;
}
