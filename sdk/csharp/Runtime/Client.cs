using System;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Api;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace GameBackend
{
    /// <summary>
    /// The game backend, for one player: sign in with a provider's token or as a guest on this device, then call any route through
    /// <see cref="Api"/> (generated from the OpenAPI document), which sends the session's token, renews it,
    /// and retries as <see cref="RetryPolicy"/> says. <see cref="CreateSocket"/> opens the realtime socket.
    /// One Client per player; it is safe to use from several tasks at once.
    /// </summary>
    public sealed class Client : IDisposable
    {
        private readonly HttpMessageHandler _transport;
        private readonly RetryHandler _retries;
        private readonly HttpClient _http;
        private readonly object _refreshLock = new object();
        private Task _refreshing;

        /// <summary>Where the service is, e.g. <c>https://game.example.com/</c>.</summary>
        public Uri BaseUrl { get; private set; }

        public RetryPolicy Retry { get; private set; }

        /// <summary>How long before its expiry the token is renewed (default one minute).</summary>
        public TimeSpan RefreshMargin { get; set; }

        /// <summary>The signed-in player, or null before sign-in (requests then go out anonymous).</summary>
        public PlayerSession Session { get; private set; }

        /// <summary>Every route of the service, with the session's token and retries.</summary>
        public IGameBackendApi Api { get; private set; }

        /// <summary>Raised before each retry: what failed and how long the client waits.</summary>
        public event Action<RetryInfo> Retrying;

        /// <param name="baseUrl">Where the service is.</param>
        /// <param name="retry">When to retry; default: <see cref="RetryPolicy"/>'s defaults.</param>
        /// <param name="transport">The handler that sends requests (default: a new HttpClientHandler).</param>
        public Client(string baseUrl, RetryPolicy retry = null, HttpMessageHandler transport = null)
        {
            BaseUrl = new Uri(baseUrl.EndsWith("/", StringComparison.Ordinal) ? baseUrl : baseUrl + "/");
            Retry = retry ?? new RetryPolicy();
            RefreshMargin = TimeSpan.FromMinutes(1);
            _transport = transport ?? new HttpClientHandler();
            _retries = new RetryHandler(Retry, _transport, info =>
            {
                var retrying = Retrying;
                if (retrying != null) retrying(info);
            });
            _http = new HttpClient(new SessionHandler(this, _retries), disposeHandler: false);
            Api = new GameBackendApi(_http) { BaseUrl = BaseUrl.ToString() };
        }

        /// <summary>Signs in with idp1's (OpenID Connect) token: the player's session from now on.</summary>
        public Task<PlayerSession> SignInWithIdp1Async(string providerToken, CancellationToken cancellationToken = default(CancellationToken))
        {
            return SignInAsync(providerToken, (api, token) => api.AuthSignInWithIdp1Async(token), cancellationToken);
        }

        /// <summary>Signs in with idp2's (OAuth 2.0) access token: the player's session from now on.</summary>
        public Task<PlayerSession> SignInWithIdp2Async(string providerToken, CancellationToken cancellationToken = default(CancellationToken))
        {
            return SignInAsync(providerToken, (api, token) => api.AuthSignInWithIdp2Async(token), cancellationToken);
        }

        /// <summary>
        /// Signs in as a guest with this device's id (made and kept by <paramref name="device"/> the first
        /// time): the first sign-in creates the account and its persona, later ones sign in to it. With
        /// <paramref name="create"/> false, a device that has no account yet is a 404 NO_SUCH_ACCOUNT
        /// (an <see cref="ApiException"/>) instead.
        /// </summary>
        public Task<PlayerSession> AuthenticateDeviceAsync(DeviceId device, bool create = true,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            if (device == null) throw new ArgumentNullException("device");
            var body = new DeviceSignInDto { DeviceId = device.GetOrCreate(), Create = create };
            return SignInAsync(null, (api, token) => api.AuthSignInWithDeviceAsync(body, token), cancellationToken);
        }

        /// <summary>
        /// Signs in as a guest with the id kept under <paramref name="persistentDataPath"/> (Unity:
        /// <c>Application.persistentDataPath</c>); see <see cref="AuthenticateDeviceAsync(DeviceId, bool, CancellationToken)"/>.
        /// </summary>
        public Task<PlayerSession> AuthenticateDeviceAsync(string persistentDataPath, bool create = true,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            return AuthenticateDeviceAsync(new DeviceId(persistentDataPath), create, cancellationToken);
        }

        /// <summary>
        /// Links this device to the signed-in account: the device then signs in to it as a guest (409
        /// IDENTITY_IN_USE when the device has an account of its own). Link an identity provider with
        /// <c>Api.AccountLinkIdp1Async</c> or <c>Api.AccountLinkIdp2Async</c> (the provider's token in the body).
        /// </summary>
        public Task<AccountDto> LinkDeviceAsync(DeviceId device, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (device == null) throw new ArgumentNullException("device");
            return Api.AccountLinkDeviceAsync(new LinkDeviceDto { DeviceId = device.GetOrCreate() }, cancellationToken: cancellationToken);
        }

        /// <summary>
        /// Unlinks this device from the signed-in account (409 LAST_IDENTITY when it is the only way in) and
        /// forgets its id: the sessions the device opened end, this one too if it was one of them.
        /// </summary>
        public async Task<AccountDto> UnlinkDeviceAsync(DeviceId device, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (device == null) throw new ArgumentNullException("device");
            if (!device.Exists) throw new InvalidOperationException("this device has no id to unlink");
            var account = await Api.AccountUnlinkAsync(IdentityProvider.Device, new UnlinkDto { DeviceId = device.GetOrCreate() }, cancellationToken: cancellationToken)
                .ConfigureAwait(false);
            device.Forget();
            return account;
        }

        /// <summary>Uses a session kept from an earlier run (<see cref="PlayerSession.Restore"/>).</summary>
        public void UseSession(PlayerSession session)
        {
            Session = session;
        }

        /// <summary>Forgets the session: requests go out anonymous.</summary>
        public void SignOut()
        {
            Session = null;
        }

        /// <summary>
        /// Renews the session's token now (requests do it by themselves when it is about to expire). Calls made
        /// together share one renewal: a refresh token works once.
        /// </summary>
        public Task RefreshAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            lock (_refreshLock)
            {
                // Not the first caller's cancellation: the renewal is everyone's.
                if (_refreshing == null || _refreshing.IsCompleted) _refreshing = RenewAsync(CancellationToken.None);
                return _refreshing;
            }
        }

        /// <summary>After a 401 to <paramref name="sentToken"/>: renews once, unless another request did already; whether a retry is worthwhile.</summary>
        internal async Task<bool> RefreshAfterUnauthorizedAsync(string sentToken, CancellationToken cancellationToken)
        {
            var session = Session;
            if (session == null) return false;
            if (session.Token != sentToken) return true;
            try
            {
                await RefreshAsync(cancellationToken).ConfigureAwait(false);
                return true;
            }
            catch (ApiException)
            {
                // The refresh token is spent or its session revoked: the caller gets the 401.
                return false;
            }
        }

        /// <summary>
        /// Sends JSON as it is, for what the typed API cannot say: a null that clears a field on an update
        /// (typed bodies leave unset fields out, null ones too). Same token, renewal and retries as <see cref="Api"/>.
        /// </summary>
        public async Task<JToken> SendJsonAsync(HttpMethod method, string path, JToken body = null, string ifMatch = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var answer = await SendAsync(method, path, body, ifMatch, cancellationToken).ConfigureAwait(false);
            return answer.Text.Length == 0 ? null : JToken.Parse(answer.Text);
        }

        /// <summary>A GET whose answer's headers matter (a page cursor): the body as text, and the headers.</summary>
        internal Task<Answer> GetTextAsync(string path, CancellationToken cancellationToken)
        {
            return SendAsync(HttpMethod.Get, path, null, null, cancellationToken);
        }

        internal sealed class Answer
        {
            public string Text;
            public System.Collections.Generic.Dictionary<string, System.Collections.Generic.IEnumerable<string>> Headers;
        }

        private async Task<Answer> SendAsync(HttpMethod method, string path, JToken body, string ifMatch, CancellationToken cancellationToken)
        {
            using (var request = new HttpRequestMessage(method, new Uri(BaseUrl, path.TrimStart('/'))))
            {
                if (body != null) request.Content = new StringContent(body.ToString(Formatting.None), Encoding.UTF8, "application/json");
                if (ifMatch != null) request.Headers.TryAddWithoutValidation("If-Match", ifMatch);
                request.Headers.Accept.Add(new MediaTypeWithQualityHeaderValue("application/json"));
                using (var response = await _http.SendAsync(request, cancellationToken).ConfigureAwait(false))
                {
                    var text = response.Content == null ? "" : await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                    var headers = new System.Collections.Generic.Dictionary<string, System.Collections.Generic.IEnumerable<string>>(StringComparer.OrdinalIgnoreCase);
                    foreach (var header in response.Headers) headers[header.Key] = header.Value;
                    if (!response.IsSuccessStatusCode)
                    {
                        ErrorBody error = null;
                        try { error = JsonConvert.DeserializeObject<ErrorBody>(text); } catch (JsonException) { }
                        throw new ApiException<ErrorBody>(error != null ? error.Message : response.ReasonPhrase, (int)response.StatusCode, text, headers, error, null);
                    }
                    return new Answer { Text = text, Headers = headers };
                }
            }
        }

        /// <summary>The realtime socket of the signed-in player (docs/REALTIME.md); call ConnectAsync on it.</summary>
        public Socket CreateSocket()
        {
            return new Socket(this);
        }

        public void Dispose()
        {
            _http.Dispose();
            _retries.Dispose();
        }

        /// <summary>A client of the routes that take no token of ours (sign-in, refresh): retries, no session.</summary>
        private GameBackendApi PublicApi(string bearer, out HttpClient http)
        {
            http = new HttpClient(_retries, disposeHandler: false);
            if (bearer != null) http.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", bearer);
            return new GameBackendApi(http) { BaseUrl = BaseUrl.ToString() };
        }

        private async Task<PlayerSession> SignInAsync(string providerToken, Func<GameBackendApi, CancellationToken, Task<TokenDto>> signIn,
            CancellationToken cancellationToken)
        {
            HttpClient http;
            var api = PublicApi(providerToken, out http);
            using (http)
            {
                Session = new PlayerSession(await signIn(api, cancellationToken).ConfigureAwait(false));
                return Session;
            }
        }

        private async Task RenewAsync(CancellationToken cancellationToken)
        {
            var session = Session;
            if (session == null) throw new InvalidOperationException("not signed in");
            HttpClient http;
            var api = PublicApi(null, out http);
            using (http)
            {
                // POST without an Idempotency-Key: never retried, since a refresh token spent twice signs the session out.
                var tokens = await api.AuthRefreshAsync(new RefreshDto { RefreshToken = session.RefreshToken }, cancellationToken).ConfigureAwait(false);
                session.Update(tokens);
            }
            session.RaiseRefreshed();
        }
    }
}
