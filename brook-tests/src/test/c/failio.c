/*
 * An LD_PRELOAD shim that makes a process's disk writes fail on demand, for the fault campaign's
 * disk I/O error class. Once the file named by BROOK_FAILIO_TRIGGER exists, every write, pwrite,
 * writev, pwritev, fsync and fdatasync on a file under the directory BROOK_FAILIO_DIR fails with
 * EIO; everything else (sockets, the node's output, other files) is untouched. Before the trigger
 * appears each intercepted call costs one access(2) on top of the real call.
 *
 * Built at run time by the campaign: gcc -shared -fPIC -O2 -o failio.so failio.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int failing(int fd) {
  const char *trigger = getenv("BROOK_FAILIO_TRIGGER");
  const char *dir = getenv("BROOK_FAILIO_DIR");
  if (trigger == NULL || dir == NULL || access(trigger, F_OK) != 0) {
    return 0;
  }
  char link[64];
  char path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) {
    return 0;
  }
  path[n] = '\0';
  size_t len = strlen(dir);
  return strncmp(path, dir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);
typedef int (*sync_fn)(int);

/* The next definition of the symbol (libc's), looked up once. */
#define REAL(name, type) \
  static type real_##name; \
  if (real_##name == NULL) real_##name = (type) dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t count) {
  REAL(write, write_fn);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_write(fd, buf, count);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  REAL(pwrite, pwrite_fn);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_pwrite(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
  REAL(pwrite64, pwrite_fn);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_pwrite64(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
  REAL(writev, writev_fn);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_writev(fd, iov, iovcnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
  REAL(pwritev, pwritev_fn);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_pwritev(fd, iov, iovcnt, offset);
}

int fsync(int fd) {
  REAL(fsync, sync_fn);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_fsync(fd);
}

int fdatasync(int fd) {
  REAL(fdatasync, sync_fn);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_fdatasync(fd);
}
