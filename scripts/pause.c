/*
 * pause — the idle first process of a Pod sandbox, for the local registry.k8s.io/pause image
 * that scripts/node-images builds (kubeadm-ts's own; built with `gcc -static`).
 *
 * A sandbox's pause process holds the Pod's namespaces open and, as PID 1 of the Pod's PID
 * namespace, must adopt and reap orphans. It waits for signals synchronously:
 *   SIGCHLD          reap every exited child, keep waiting;
 *   SIGTERM, SIGINT  exit 0 (a clean sandbox stop);
 * `pause -v` prints its version.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAUSE_VERSION "kubeadm-ts-1"

/*
 * Handlers are never run (the signals stay blocked and are taken by sigwaitinfo), but a
 * handler other than SIG_DFL keeps the kernel from discarding signals sent to a PID 1.
 */
static void unused_handler(int sig) { (void)sig; }

static void reap_children(void) {
  for (;;) {
    pid_t pid = waitpid(-1, NULL, WNOHANG);
    if (pid > 0) continue;
    if (pid < 0 && errno == EINTR) continue;
    return; /* 0: children left but none exited; -1/ECHILD: no children */
  }
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "-v") == 0) {
    printf("pause %s\n", PAUSE_VERSION);
    return 0;
  }
  if (argc != 1) {
    fprintf(stderr, "usage: %s [-v]\n", argv[0]);
    return 2;
  }
  if (getpid() != 1) fprintf(stderr, "pause: not PID 1: orphans of this namespace go elsewhere\n");

  const int sigs[] = {SIGCHLD, SIGTERM, SIGINT};
  sigset_t waited;
  sigemptyset(&waited);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = unused_handler;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    sigaddset(&waited, sigs[i]);
    if (sigaction(sigs[i], &sa, NULL) != 0) {
      perror("pause: sigaction");
      return 1;
    }
  }
  if (sigprocmask(SIG_BLOCK, &waited, NULL) != 0) {
    perror("pause: sigprocmask");
    return 1;
  }
  /* Children that exited before the mask was in place. */
  reap_children();

  for (;;) {
    siginfo_t info;
    int sig = sigwaitinfo(&waited, &info);
    if (sig < 0) {
      if (errno == EINTR) continue;
      perror("pause: sigwaitinfo");
      return 1;
    }
    if (sig == SIGCHLD) {
      reap_children();
      continue;
    }
    fprintf(stderr, "pause: signal %d, exiting\n", sig);
    return 0;
  }
}
