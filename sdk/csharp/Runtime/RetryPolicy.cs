using System;
using System.Threading;
using System.Threading.Tasks;

namespace GameBackend
{
    /// <summary>
    /// When a request is sent again: after a 429 or a 5xx answer, or a connection that failed, for requests
    /// that are safe to repeat (GET, HEAD, PUT, DELETE, OPTIONS, and any request with an
    /// <c>Idempotency-Key</c> header); other POSTs, which might then happen twice, only after a 503
    /// <c>OVERLOADED</c>, which says the service did nothing with them. Waits are
    /// "full jitter" (a random time up to a doubling cap, so that many clients do not retry in step), and
    /// never shorter than the answer's <c>Retry-After</c>.
    /// </summary>
    public sealed class RetryPolicy
    {
        private readonly Random _random = new Random();

        /// <summary>Tries in all, the first included. 1 turns retries off.</summary>
        public int MaxAttempts { get; set; }

        /// <summary>The cap of the first wait; it doubles with each retry.</summary>
        public TimeSpan BaseDelay { get; set; }

        /// <summary>The largest cap.</summary>
        public TimeSpan MaxDelay { get; set; }

        /// <summary>
        /// A <c>Retry-After</c> longer than this is not waited for: the answer (a 429 or 503) goes to the
        /// caller, whose game should not freeze for a minute.
        /// </summary>
        public TimeSpan MaxRetryAfter { get; set; }

        /// <summary>How a wait is waited (tests replace it).</summary>
        public Func<TimeSpan, CancellationToken, Task> Delay { get; set; }

        public RetryPolicy()
        {
            MaxAttempts = 4;
            BaseDelay = TimeSpan.FromMilliseconds(500);
            MaxDelay = TimeSpan.FromSeconds(10);
            MaxRetryAfter = TimeSpan.FromSeconds(30);
            Delay = (wait, cancellation) => Task.Delay(wait, cancellation);
        }

        /// <summary>No retries at all.</summary>
        public static RetryPolicy None
        {
            get { return new RetryPolicy { MaxAttempts = 1 }; }
        }

        /// <summary>The wait before retry number <paramref name="retry"/> (1 for the first), given the answer's Retry-After.</summary>
        public TimeSpan WaitBefore(int retry, TimeSpan? retryAfter)
        {
            var cap = Math.Min(MaxDelay.TotalMilliseconds, BaseDelay.TotalMilliseconds * Math.Pow(2, retry - 1));
            double jitter;
            lock (_random) jitter = _random.NextDouble() * cap;
            var wait = TimeSpan.FromMilliseconds(jitter);
            return retryAfter.HasValue && retryAfter.Value > wait ? retryAfter.Value : wait;
        }
    }
}
