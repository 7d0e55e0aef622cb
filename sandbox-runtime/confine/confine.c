/*
 * confine <filter.bpf> <capabilities> <program> [argument...]
 *
 * Confines the calling process as a sandbox's init is confined by bwrap, then becomes <program>:
 * how a command entering a running sandbox (nsenter, then this) gets the same rules.
 *   - capabilities: exactly <capabilities> (comma-separated names, Docker's default set), in the
 *     bounding, permitted, effective and inheritable sets, none ambient, as bwrap gives the init
 *     (libcap; with no_new_privs, inheritable ones cannot be gained through a file's);
 *   - no_new_privs, then the seccomp filter compiled by libseccomp (compile-profile.py).
 * Built static, because it runs inside the sandbox's root, whose dynamic loader the sandbox could
 * have replaced before the rules are on.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void fail(const char *what) {
  fprintf(stderr, "orrery-confine: %s: %s\n", what, strerror(errno));
  exit(126);
}

static int listed(const char *names, cap_value_t value) {
  char *copy = strdup(names);
  if (copy == NULL) fail("strdup");
  int found = 0;
  for (char *name = strtok(copy, ","); name != NULL && !found; name = strtok(NULL, ",")) {
    cap_value_t named;
    if (cap_from_name(name, &named) != 0) {
      errno = EINVAL;
      fail(name);
    }
    found = named == value;
  }
  free(copy);
  return found;
}

static void keep_capabilities(const char *names) {
  cap_t kept = cap_init();
  if (kept == NULL) fail("cap_init");
  for (cap_value_t value = 0; value < (cap_value_t)cap_max_bits(); value++) {
    if (listed(names, value)) {
      cap_flag_t sets[] = {CAP_EFFECTIVE, CAP_PERMITTED, CAP_INHERITABLE};
      for (int set = 0; set < 3; set++)
        if (cap_set_flag(kept, sets[set], 1, &value, CAP_SET) != 0) fail("cap_set_flag");
    } else if (cap_drop_bound(value) != 0) {
      fail("cap_drop_bound");
    }
  }
  if (cap_reset_ambient() != 0) fail("cap_reset_ambient");
  if (cap_set_proc(kept) != 0) fail("cap_set_proc");
  cap_free(kept);
}

static struct sock_fprog read_filter(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path);
  struct stat st;
  if (fstat(fd, &st) != 0) fail(path);
  if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0 || st.st_size > 65535 * 8) {
    errno = EINVAL;
    fail(path);
  }
  struct sock_filter *filter = malloc(st.st_size);
  if (filter == NULL) fail("malloc");
  for (off_t done = 0; done < st.st_size;) {
    ssize_t got = read(fd, (char *)filter + done, st.st_size - done);
    if (got <= 0) fail(path);
    done += got;
  }
  close(fd);
  return (struct sock_fprog){.len = (unsigned short)(st.st_size / sizeof(struct sock_filter)), .filter = filter};
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: confine <filter.bpf> <capabilities> <program> [argument...]\n");
    return 126;
  }
  struct sock_fprog program = read_filter(argv[1]);
  keep_capabilities(argv[2]);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) fail("seccomp");
  execv(argv[3], argv + 3);
  fail(argv[3]);
}
