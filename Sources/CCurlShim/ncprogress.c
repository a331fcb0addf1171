#include "ncprogress.h"

#include <string.h>
#include <time.h>

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void report(ncprogress *p, int64_t now) {
    memcpy(p->reported, p->seen, sizeof p->reported);
    p->last_ns = now ? now : 1;
    p->calls++;
    p->fn(p->seen[0], p->seen[1], p->seen[2], p->seen[3], p->userdata);
}

int ncprogress_xferinfo(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                        curl_off_t ulnow) {
    ncprogress *p = userdata;
    if (!p || !p->fn) return 0;
    int64_t v[4] = {dlnow, dltotal, ulnow, ultotal};
    /* A download's values describe the whole file (an unknown total stays 0). */
    /* Only once a 206 continues the .part: before its first byte a 200 may still
     * start it over (then the offset is not part of this body). */
    int64_t base = p->dl && p->dl->appended ? p->dl->offset : 0;
    if (base > 0 && (v[0] > 0 || v[1] > 0)) {
        v[0] += base;
        if (v[1] > 0) v[1] += base;
    }
    int changed = 0;
    for (int i = 0; i < 4; i++) {
        if (v[i] > p->seen[i]) {
            p->seen[i] = v[i];
            changed = 1;
        }
    }
    if (!changed && memcmp(p->seen, p->reported, sizeof p->seen) == 0) return 0;
    int64_t now = now_ns();
    int complete = p->seen[1] > 0 && p->seen[0] == p->seen[1] && p->reported[0] != p->seen[0];
    if (complete || p->last_ns == 0 || now - p->last_ns >= NCPROGRESS_INTERVAL_NS) report(p, now);
    return 0;
}

void ncprogress_flush(ncprogress *p) {
    if (!p || !p->fn) return;
    if (memcmp(p->seen, p->reported, sizeof p->seen) != 0) report(p, now_ns());
}

CURLcode ncprogress_install(CURL *easy, ncprogress *p) {
    CURLcode rc = curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, ncprogress_xferinfo);
    if (rc == CURLE_OK) rc = curl_easy_setopt(easy, CURLOPT_XFERINFODATA, (void *)p);
    if (rc == CURLE_OK) rc = curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
    return rc;
}

static __thread void *current_task;

void *ncstream_current(void) {
    return current_task;
}

void *ncstream_enter(void *task) {
    void *previous = current_task;
    current_task = task;
    return previous;
}

void ncstream_leave(void *previous) {
    current_task = previous;
}

int ncstream_chunk(const void *chunk, size_t len, void *userdata) {
    ncstream *s = userdata;
    s->delivered = 1;
    void *previous = current_task;
    current_task = s->task;
    int answer = s->fn(chunk, len, s->userdata);
    current_task = previous;
    return answer;
}
