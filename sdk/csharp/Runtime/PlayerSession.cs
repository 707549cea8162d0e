using System;
using System.Text;
using GameBackend.Api;
using Newtonsoft.Json.Linq;

namespace GameBackend
{
    /// <summary>
    /// A signed-in player: our access token, the refresh token that renews it, and when the access token
    /// expires. The <see cref="Client"/> that owns it renews it before it expires and once after a 401;
    /// keep <see cref="RefreshToken"/> (e.g. in PlayerPrefs) to sign the player back in with
    /// <see cref="Restore"/> without asking the identity provider again.
    /// </summary>
    public sealed class PlayerSession
    {
        /// <summary>Our JWT, sent as <c>Authorization: Bearer &lt;token&gt;</c>.</summary>
        public string Token { get; private set; }

        /// <summary>Spent by each refresh: always keep the newest one.</summary>
        public string RefreshToken { get; private set; }

        /// <summary>When <see cref="Token"/> expires (UTC).</summary>
        public DateTime ExpiresAt { get; private set; }

        /// <summary>The player's user uid (the token's <c>sub</c>).</summary>
        public Guid UserUid { get; private set; }

        /// <summary>Raised after each refresh, with the new tokens (save <see cref="RefreshToken"/> again).</summary>
        public event Action<PlayerSession> Refreshed;

        internal PlayerSession(TokenDto tokens)
        {
            Update(tokens);
        }

        private PlayerSession(string token, string refreshToken)
        {
            SetToken(token, null);
            RefreshToken = refreshToken;
        }

        /// <summary>
        /// A session from tokens kept by an earlier run; its expiry is read from the token. An expired token
        /// is fine: the first request refreshes it (while the refresh token lives).
        /// </summary>
        public static PlayerSession Restore(string token, string refreshToken)
        {
            if (string.IsNullOrEmpty(token)) throw new ArgumentException("token is required", "token");
            if (string.IsNullOrEmpty(refreshToken)) throw new ArgumentException("refreshToken is required", "refreshToken");
            return new PlayerSession(token, refreshToken);
        }

        /// <summary>Whether the token expires within <paramref name="margin"/> from now.</summary>
        public bool ExpiresWithin(TimeSpan margin)
        {
            return DateTime.UtcNow + margin >= ExpiresAt;
        }

        internal void Update(TokenDto tokens)
        {
            SetToken(tokens.Token, tokens.ExpiresIn);
            RefreshToken = tokens.RefreshToken;
        }

        internal void RaiseRefreshed()
        {
            var refreshed = Refreshed;
            if (refreshed != null) refreshed(this);
        }

        private void SetToken(string token, int? expiresInSeconds)
        {
            var claims = ReadClaims(token);
            Token = token;
            UserUid = Guid.Parse((string)claims["sub"]);
            // The token's own exp when the answer does not say (a restored session).
            ExpiresAt = expiresInSeconds.HasValue
                ? DateTime.UtcNow.AddSeconds(expiresInSeconds.Value)
                : new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddSeconds((long)claims["exp"]);
        }

        private static JObject ReadClaims(string token)
        {
            var parts = token.Split('.');
            if (parts.Length != 3) throw new ArgumentException("not a JWT", "token");
            var payload = parts[1].Replace('-', '+').Replace('_', '/');
            payload = payload.PadRight(payload.Length + (4 - payload.Length % 4) % 4, '=');
            return JObject.Parse(Encoding.UTF8.GetString(Convert.FromBase64String(payload)));
        }
    }
}
