/* test_stats.c: the bench's summaries of timed samples (cli/summary.c): median, spread, mean of the middle half. */
#include <math.h>
#include "cli.h"
#include "testing.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b) + 1); }

int main(void)
{
    /* Unsorted, with a slow outlier: the middle half is {2, 2, 2, 3} (samples 3..6 of 8, once sorted). */
    double s[8] = {3, 50, 2, 1, 2, 3, 1, 2}, mid, spread, median;
    gpu_time_stats(s, 8, &mid, &spread);
    CHECK(near(mid, 2.25), "mean of the middle half %g, wanted 2.25", mid);
    CHECK(s[0] == 1 && s[7] == 50, "samples left sorted (%g .. %g)", s[0], s[7]);
    double u[8] = {3, 50, 2, 1, 2, 3, 1, 2};
    time_stats(u, 8, &median, &spread);
    CHECK(near(median, 2), "median %g, wanted 2", median);
    /* p10 = 1, p90 = 3 + 0.3 * 47 = 17.1 (linear between order statistics): spread (17.1 - 1) / 2. */
    CHECK(near(spread, 100.0 * 16.1 / 2), "spread %g %%, wanted 805", spread);
    double v[8] = {3, 50, 2, 1, 2, 3, 1, 2};
    gpu_time_stats(v, 8, &mid, &spread);
    CHECK(near(spread, 100.0 * 16.1 / 2.25), "GPU spread %g %% is over the middle mean", spread);

    /* Event times on a 32 ns grid: 600 launches at 5.024 us and 400 at 5.056 us (a true time of about 5.037).
     * The median sits on a tick; the middle half's mean falls between the ticks. */
    static double q[1000];
    for (int i = 0; i < 1000; i++)
        q[i] = i % 5 < 3 ? 5.024e-3 : 5.056e-3;
    time_stats(q, 1000, &median, &spread);
    CHECK(near(median, 5.024e-3), "median %g on the lower tick", median);
    for (int i = 0; i < 1000; i++)
        q[i] = i % 5 < 3 ? 5.024e-3 : 5.056e-3;
    gpu_time_stats(q, 1000, &mid, &spread);
    /* Sorted: 600 low then 400 high; the middle half (250..749) holds 350 low and 150 high. */
    CHECK(near(mid, (350 * 5.024e-3 + 150 * 5.056e-3) / 500), "middle mean %g between the ticks", mid);
    CHECK(mid > 5.024e-3 && mid < 5.056e-3, "middle mean %g strictly between the ticks", mid);

    /* Few samples: one is itself, three are all kept (n / 4 = 0), none gives 0. */
    double one[1] = {7}, three[3] = {4, 1, 7};
    gpu_time_stats(one, 1, &mid, &spread);
    CHECK(near(mid, 7) && spread == 0, "one sample: %g, spread %g", mid, spread);
    gpu_time_stats(three, 3, &mid, &spread);
    CHECK(near(mid, 4), "three samples: %g, wanted their mean 4", mid);
    gpu_time_stats(NULL, 0, &mid, &spread);
    CHECK(mid == 0 && spread == 0, "no samples: %g, %g", mid, spread);
    return t_finish("stats");
}
