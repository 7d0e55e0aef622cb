/*
 * orrery-seccomp-exec <filter.bpf> <program> [argument...]
 *
 * Puts the calling process under a seccomp filter and becomes <program>: how a command entering
 * a running sandbox (nsenter, then this) gets the filter its init got from bwrap's --seccomp.
 * The filter is compiled once by libseccomp (compile-profile.py); this only loads it, as bwrap
 * does. Built static, because it runs inside the sandbox's root, whose dynamic loader the
 * sandbox could have replaced before the filter is on.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void fail(const char *what) {
  fprintf(stderr, "orrery-seccomp-exec: %s: %s\n", what, strerror(errno));
  exit(126);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: orrery-seccomp-exec <filter.bpf> <program> [argument...]\n");
    return 126;
  }
  int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(argv[1]);
  struct stat st;
  if (fstat(fd, &st) != 0) fail(argv[1]);
  if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0 || st.st_size > 65536 * 8) {
    errno = EINVAL;
    fail(argv[1]);
  }
  struct sock_filter *filter = malloc(st.st_size);
  if (filter == NULL) fail("malloc");
  for (off_t done = 0; done < st.st_size;) {
    ssize_t got = read(fd, (char *)filter + done, st.st_size - done);
    if (got <= 0) fail(argv[1]);
    done += got;
  }
  close(fd);
  struct sock_fprog program = {.len = (unsigned short)(st.st_size / sizeof(struct sock_filter)), .filter = filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) fail("seccomp");
  execv(argv[2], argv + 2);
  fail(argv[2]);
}
