using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Api;
using Newtonsoft.Json;

namespace GameBackend.Api
{
    public partial class Leaderboard : IVersionedRecord { }
    public partial class LeaderboardPeriod : IVersionedRecord { }
    public partial class LeaderboardRecordView : IVersionedRecord { }
}

namespace GameBackend
{
    /// <summary>
    /// Leaderboard scores are 64-bit integers, which JSON carries as a number where it is exact (up to
    /// 2^53 - 1) and as a string of digits beyond: the generated classes type them <c>object</c>.
    /// </summary>
    public static class Scores
    {
        private const long MaxSafe = 9007199254740991L;

        /// <summary>A score as the service reads it: <c>new SubmitScoreDto { Score = Scores.Json(long.MaxValue) }</c>.</summary>
        public static object Json(long score)
        {
            return score >= -MaxSafe && score <= MaxSafe ? (object)score : score.ToString(CultureInfo.InvariantCulture);
        }

        /// <summary>A score as the service wrote it (a number or a string), as a long; null stays null.</summary>
        public static long? ToInt64(object score)
        {
            if (score == null) return null;
            var text = score as string;
            return text != null ? long.Parse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture) : Convert.ToInt64(score, CultureInfo.InvariantCulture);
        }

        public static long? ScoreValue(this LeaderboardRecordView record) { return ToInt64(record.Score); }
        public static long? SubscoreValue(this LeaderboardRecordView record) { return ToInt64(record.Subscore); }
    }

    /// <summary>One page of a board's ranked records, and the cursor of the next (null on the last page).</summary>
    public sealed class LeaderboardPage
    {
        public LeaderboardPage(List<LeaderboardRecordView> records, string nextCursor)
        {
            Records = records;
            NextCursor = nextCursor;
        }

        public List<LeaderboardRecordView> Records { get; private set; }

        /// <summary>Pass it to the next call: that page shows the ranks of the first page's moment (nothing skipped or repeated).</summary>
        public string NextCursor { get; private set; }
    }

    /// <summary>What the generated client cannot say about leaderboards: the next page's cursor, which travels in a header.</summary>
    public static class Leaderboards
    {
        /// <summary>
        /// A page of the board's records, best first (<paramref name="limit"/> 1 to 100). Walk a board with
        /// <c>for (var page = await client.ReadLeaderboardAsync(board); ; page = await client.ReadLeaderboardAsync(board, cursor: page.NextCursor))</c>
        /// until <see cref="LeaderboardPage.NextCursor"/> is null. <paramref name="period"/>: <c>current</c>, <c>previous</c> or a period's uid.
        /// </summary>
        public static async Task<LeaderboardPage> ReadLeaderboardAsync(this Client client, Guid board, int limit = 20, string cursor = null,
            string period = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var query = new List<string> { "limit=" + limit.ToString(CultureInfo.InvariantCulture) };
            if (cursor != null) query.Add("cursor=" + Uri.EscapeDataString(cursor));
            if (period != null) query.Add("period=" + Uri.EscapeDataString(period));
            var answer = await client.GetTextAsync("leaderboards/" + board + "/records?" + string.Join("&", query), cancellationToken).ConfigureAwait(false);
            IEnumerable<string> next;
            var nextCursor = answer.Headers.TryGetValue("X-Next-Cursor", out next) ? next.FirstOrDefault() : null;
            return new LeaderboardPage(JsonConvert.DeserializeObject<List<LeaderboardRecordView>>(answer.Text), nextCursor);
        }
    }
}
