/*
 * The sandbox ("pause") process of a Pod: PID 1 of the Pod's namespaces. It holds them open,
 * reaps any zombie re-parented to it and exits on SIGINT/SIGTERM. Built static so the image
 * needs nothing but this file (images/pause/Dockerfile).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int sig) {
  (void)sig;
  _exit(0);
}

static void on_child(int sig) {
  (void)sig;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

static void handle(int sig, void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sa.sa_flags = SA_RESTART | (sig == SIGCHLD ? SA_NOCLDSTOP : 0);
  if (sigaction(sig, &sa, NULL) < 0) {
    perror("sigaction");
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "-v") == 0) {
    puts("replicapool pause");
    return 0;
  }
  if (getpid() != 1) {
    fprintf(stderr, "pause: warning: not PID 1, zombies of others will not be reaped here\n");
  }
  handle(SIGINT, on_stop);
  handle(SIGTERM, on_stop);
  handle(SIGCHLD, on_child);
  for (;;) {
    pause();
  }
}
