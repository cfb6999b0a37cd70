/* PCM sidecar processes: see pcm_sidecar.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2 */
#endif
#include "meters/pcm_sidecar.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

/* "SECONDS.NANOSECONDS\t" without stdio: the relay is a fork of a process that may have other
 * threads, so between fork and _exit it keeps to async-signal-safe calls. */
static size_t format_stamp(char *out, const struct timespec *ts)
{
    char digits[24];
    size_t n = 0, k = 0;
    unsigned long long sec = (unsigned long long)ts->tv_sec;
    do {
        digits[k++] = (char)('0' + sec % 10);
        sec /= 10;
    } while (sec);
    while (k) out[n++] = digits[--k];
    out[n++] = '.';
    long ns = ts->tv_nsec;
    for (int i = 8; i >= 0; i--) {
        out[n + (size_t)i] = (char)('0' + ns % 10);
        ns /= 10;
    }
    n += 9;
    out[n++] = '\t';
    return n;
}

/* Copies in to out, stamping each line with the time the read that brought its first byte
 * returned. */
static void relay_lines(int in, int out)
{
    static char inbuf[4096];
    static char outbuf[4096 * 32]; /* a stamp is at most 31 bytes: room for one per byte */
    int at_line_start = 1;
    for (;;) {
        ssize_t r = read(in, inbuf, sizeof inbuf);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        char stamp[32];
        size_t sl = format_stamp(stamp, &ts), o = 0;
        for (ssize_t i = 0; i < r; i++) {
            if (at_line_start) {
                memcpy(outbuf + o, stamp, sl);
                o += sl;
                at_line_start = 0;
            }
            outbuf[o++] = inbuf[i];
            if (inbuf[i] == '\n') at_line_start = 1;
        }
        write_all(out, outbuf, o);
    }
}

int bb_pcm_sidecar_start(bb_pcm_sidecar *s, char *const argv[], const char *log, const char *stamped_out, char *err,
                         size_t errlen)
{
    s->pid = s->relay = 0;
    int pipefd[2] = {-1, -1};
    if (stamped_out && pipe2(pipefd, O_CLOEXEC)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    s->pid = fork();
    if (s->pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null = open("/dev/null", O_RDONLY);
        if (fd >= 0) {
            dup2(stamped_out ? pipefd[1] : fd, 1);
            dup2(fd, 2);
        }
        if (null >= 0) dup2(null, 0);
        execv(argv[0], argv);
        _exit(127);
    }
    if (s->pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        s->pid = 0;
        if (stamped_out) {
            close(pipefd[0]);
            close(pipefd[1]);
        }
        return -1;
    }
    if (!stamped_out) return 0;
    s->relay = fork();
    if (s->relay == 0) {
        close(pipefd[1]);
        int out = open(stamped_out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out >= 0) relay_lines(pipefd[0], out);
        _exit(out >= 0 ? 0 : 1);
    }
    close(pipefd[0]);
    close(pipefd[1]);
    if (s->relay < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        s->relay = 0;
        bb_pcm_sidecar_stop(s);
        return -1;
    }
    return 0;
}

int bb_pcm_sidecar_exited(bb_pcm_sidecar *s, int *status)
{
    if (s->pid <= 0) {
        *status = -1;
        return 1;
    }
    if (waitpid(s->pid, status, WNOHANG) == s->pid) {
        s->pid = 0;
        return 1;
    }
    return 0;
}

static void reap(pid_t *pid, int sig)
{
    if (*pid <= 0) return;
    if (sig) kill(*pid, sig);
    for (int i = 0; i < 100; i++) { /* pcm restores its counters on SIGINT: give it 1 s */
        if (waitpid(*pid, NULL, WNOHANG) == *pid) {
            *pid = 0;
            return;
        }
        sleep_s(0.01);
    }
    kill(*pid, SIGKILL);
    waitpid(*pid, NULL, 0);
    *pid = 0;
}

void bb_pcm_sidecar_stop(bb_pcm_sidecar *s)
{
    reap(&s->pid, SIGINT);
    reap(&s->relay, 0); /* the tool's end of the pipe is closed now: the relay drains and exits */
}
