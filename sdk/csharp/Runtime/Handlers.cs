using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Threading;
using System.Threading.Tasks;

namespace GameBackend
{
    /// <summary>What a retry was: which request, after what, and how long the client waits.</summary>
    public sealed class RetryInfo
    {
        public HttpMethod Method { get; internal set; }
        public Uri Uri { get; internal set; }
        /// <summary>The retry's number: 1 for the first.</summary>
        public int Retry { get; internal set; }
        /// <summary>The answer's status, or null when the connection failed.</summary>
        public int? Status { get; internal set; }
        public TimeSpan Wait { get; internal set; }
    }

    /// <summary>A request as bytes, so that it can be sent again: a sent HttpRequestMessage cannot be.</summary>
    internal sealed class RequestCopy
    {
        private readonly HttpMethod _method;
        private readonly Uri _uri;
        private readonly Version _version;
        private readonly KeyValuePair<string, string[]>[] _headers;
        private readonly byte[] _body;
        private readonly KeyValuePair<string, string[]>[] _contentHeaders;

        private RequestCopy(HttpRequestMessage request, byte[] body)
        {
            _method = request.Method;
            _uri = request.RequestUri;
            _version = request.Version;
            _headers = request.Headers.Select(header => new KeyValuePair<string, string[]>(header.Key, header.Value.ToArray())).ToArray();
            _body = body;
            _contentHeaders = request.Content == null
                ? new KeyValuePair<string, string[]>[0]
                : request.Content.Headers.Select(header => new KeyValuePair<string, string[]>(header.Key, header.Value.ToArray())).ToArray();
        }

        public static async Task<RequestCopy> OfAsync(HttpRequestMessage request)
        {
            var body = request.Content == null ? null : await request.Content.ReadAsByteArrayAsync().ConfigureAwait(false);
            return new RequestCopy(request, body);
        }

        public HttpRequestMessage Create()
        {
            var request = new HttpRequestMessage(_method, _uri) { Version = _version };
            foreach (var header in _headers) request.Headers.TryAddWithoutValidation(header.Key, header.Value);
            if (_body != null)
            {
                request.Content = new ByteArrayContent(_body);
                foreach (var header in _contentHeaders) request.Content.Headers.TryAddWithoutValidation(header.Key, header.Value);
            }
            return request;
        }
    }

    /// <summary>Sends a request again as the <see cref="RetryPolicy"/> says (the innermost handler of a <see cref="Client"/>).</summary>
    internal sealed class RetryHandler : DelegatingHandler
    {
        private static readonly string[] SafeMethods = { "GET", "HEAD", "PUT", "DELETE", "OPTIONS" };
        private readonly RetryPolicy _policy;
        private readonly Action<RetryInfo> _retrying;

        public RetryHandler(RetryPolicy policy, HttpMessageHandler inner, Action<RetryInfo> retrying) : base(inner)
        {
            _policy = policy;
            _retrying = retrying;
        }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            if (_policy.MaxAttempts <= 1) return await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            // A request that must not happen twice is sent again only after an answer saying nothing was done.
            var repeatable = MayRepeat(request);
            var copy = await RequestCopy.OfAsync(request).ConfigureAwait(false);
            var current = request;
            for (var attempt = 1; ; attempt++)
            {
                HttpResponseMessage response = null;
                try
                {
                    response = await base.SendAsync(current, cancellationToken).ConfigureAwait(false);
                }
                catch (HttpRequestException) when (repeatable && attempt < _policy.MaxAttempts)
                {
                    // The connection failed: nothing was answered, so the request is sent again below.
                }
                catch (TaskCanceledException) when (repeatable && attempt < _policy.MaxAttempts && !cancellationToken.IsCancellationRequested)
                {
                    // HttpClient's own timeout, not the caller's cancellation.
                }
                if (response != null && attempt >= _policy.MaxAttempts) return response;
                if (response != null && !(repeatable ? IsRetryable(response.StatusCode) : await NothingWasDoneAsync(response).ConfigureAwait(false))) return response;
                var retryAfter = response == null ? null : RetryAfterOf(response);
                if (retryAfter.HasValue && retryAfter.Value > _policy.MaxRetryAfter) return response;
                var wait = _policy.WaitBefore(attempt, retryAfter);
                if (_retrying != null)
                {
                    _retrying(new RetryInfo
                    {
                        Method = request.Method,
                        Uri = request.RequestUri,
                        Retry = attempt,
                        Status = response == null ? (int?)null : (int)response.StatusCode,
                        Wait = wait,
                    });
                }
                if (response != null) response.Dispose();
                await _policy.Delay(wait, cancellationToken).ConfigureAwait(false);
                current = copy.Create();
            }
        }

        /// <summary>Whether sending it twice does no harm: an idempotent method, or a key that makes it so.</summary>
        internal static bool MayRepeat(HttpRequestMessage request)
        {
            return SafeMethods.Contains(request.Method.Method.ToUpperInvariant()) || request.Headers.Contains("Idempotency-Key");
        }

        /// <summary>
        /// Whether the answer says the service did nothing with the request: 503 OVERLOADED (the instance
        /// shed it before any of its work), so even a POST may be sent again.
        /// </summary>
        private static async Task<bool> NothingWasDoneAsync(HttpResponseMessage response)
        {
            if ((int)response.StatusCode != 503 || response.Content == null) return false;
            // Buffered, so that the caller can still read the body if the answer is returned after all.
            await response.Content.LoadIntoBufferAsync().ConfigureAwait(false);
            var body = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
            return body.Contains("\"code\":\"OVERLOADED\"");
        }

        private static bool IsRetryable(HttpStatusCode status)
        {
            var code = (int)status;
            return code == 429 || code >= 500;
        }

        private static TimeSpan? RetryAfterOf(HttpResponseMessage response)
        {
            var header = response.Headers.RetryAfter;
            if (header == null) return null;
            if (header.Delta.HasValue) return header.Delta.Value;
            if (header.Date.HasValue)
            {
                var wait = header.Date.Value - DateTimeOffset.UtcNow;
                return wait > TimeSpan.Zero ? wait : TimeSpan.Zero;
            }
            return null;
        }
    }

    /// <summary>
    /// Sends the session's token with every request, renews it shortly before it expires, and once more
    /// after a 401 (a token revoked or expired early), then sends the request again with the new one.
    /// Without a session, requests go out anonymous.
    /// </summary>
    internal sealed class SessionHandler : DelegatingHandler
    {
        private readonly Client _client;

        public SessionHandler(Client client, HttpMessageHandler inner) : base(inner)
        {
            _client = client;
        }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            var session = _client.Session;
            if (session == null || request.Headers.Authorization != null) return await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            if (session.ExpiresWithin(_client.RefreshMargin)) await _client.RefreshAsync(cancellationToken).ConfigureAwait(false);
            var sentToken = session.Token;
            request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", sentToken);
            var copy = await RequestCopy.OfAsync(request).ConfigureAwait(false);
            var response = await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            if (response.StatusCode != HttpStatusCode.Unauthorized) return response;
            if (!await _client.RefreshAfterUnauthorizedAsync(sentToken, cancellationToken).ConfigureAwait(false)) return response;
            response.Dispose();
            var again = copy.Create();
            again.Headers.Authorization = new AuthenticationHeaderValue("Bearer", session.Token);
            return await base.SendAsync(again, cancellationToken).ConfigureAwait(false);
        }
    }
}
