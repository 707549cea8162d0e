// The C# SDK as a game uses it, against a live service (test/csharp-sdk.e2e-spec.ts compiles this with
// mcs and runs it with mono). GAME_BACKEND_URL is the service behind the test's harness, which also
// answers /__harness/… (provider tokens, the matchmaker, cut sockets, injected failures). Prints one
// "ok <check>" line per check, and exits non-zero at the first that fails.
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using GameBackend;
using GameBackend.Api;
using Newtonsoft.Json.Linq;

public static class Integration
{
    private static readonly string BaseUrl = Environment.GetEnvironmentVariable("GAME_BACKEND_URL");
    private static readonly HttpClient Harness = new HttpClient { BaseAddress = new Uri(BaseUrl) };
    private static int _checks;

    public static int Main()
    {
        try
        {
            RunAsync().GetAwaiter().GetResult();
            Console.WriteLine("csharp sdk: " + _checks + " passed, 0 failed");
            return 0;
        }
        catch (Exception error)
        {
            Console.WriteLine("FAILED: " + error);
            return 1;
        }
    }

    private static async Task RunAsync()
    {
        // Sign-in through both providers, as a game does with the tokens its login gave it.
        var admin = new Client(BaseUrl);
        await admin.SignInWithIdp1Async(await HarnessText("provider-token?subject=admin"));
        var alice = new Client(BaseUrl);
        await alice.SignInWithIdp1Async(await HarnessText("provider-token?subject=cs-alice"));
        var bob = new Client(BaseUrl);
        var bobSession = await bob.SignInWithIdp2Async("idp2.cs-bob");
        Check(bobSession.UserUid != alice.Session.UserUid && bobSession.ExpiresAt > DateTime.UtcNow.AddMinutes(5), "sign-in with idp1 and idp2");

        // Refresh: on demand, before expiry (a margin wider than the token's life), and once after a 401.
        var refreshed = 0;
        alice.Session.Refreshed += _ => refreshed++;
        // The refresh token is spent and replaced (the access token may come back the same within a second).
        var first = alice.Session.RefreshToken;
        await alice.RefreshAsync();
        Check(alice.Session.RefreshToken != first && refreshed == 1, "refresh on demand");
        alice.RefreshMargin = TimeSpan.FromDays(1);
        var aliceMe = (await alice.Api.PersonasFindAllAsync()).Single();
        alice.RefreshMargin = TimeSpan.FromMinutes(1);
        Check(refreshed == 2, "refresh before expiry, by itself");
        await HarnessPost("fail?method=GET&path=/personas&status=401&times=1");
        var again = (await alice.Api.PersonasFindAllAsync()).Single();
        Check(again.Uid == aliceMe.Uid && refreshed == 3, "refresh once after a 401, and the request sent again");
        var bobMe = (await bob.Api.PersonasFindAllAsync()).Single();
        var adminMe = (await admin.Api.PersonasFindAllAsync()).First();

        // A guest on a device, linked to idp1 later, as a mobile game's first launch and its "save your progress".
        await DeviceStepsAsync();

        // CRUD with If-Match: a name-only update leaves the rest as it was.
        var created = await admin.Api.ItemsCreateAsync(new CreateItemDto
        {
            Name = "Moonsilver dagger",
            Description = "Cold to the touch.",
            Cost = 250,
            Stats = new List<StatDto> { new StatDto { Name = "damage", Value = 12 }, new StatDto { Name = "cursed", Value = false } },
        });
        var read = await admin.Api.ItemsFindByIdAsync(created.Uid);
        var renamed = await admin.Api.ItemsUpdateAsync(read.Uid, new UpdateItemDto { Name = "Moonsilver blade" }, read.IfMatch());
        Check(renamed.Version == 1 && renamed.Cost == 250 && renamed.Description == "Cold to the touch." &&
              Convert.ToInt64(renamed.Stats[0].Value) == 12 && false.Equals(renamed.Stats[1].Value), "update with If-Match changes only what it sets");
        try
        {
            await admin.Api.ItemsUpdateAsync(read.Uid, new UpdateItemDto { Name = "Stale" }, read.IfMatch());
            throw new Exception("a stale If-Match was taken");
        }
        catch (ApiException error)
        {
            Check(error.IsVersionConflict(), "a stale If-Match is a 409 VERSION_CONFLICT");
        }
        var cleared = await admin.SendJsonAsync(HttpMethod.Put, "items/" + read.Uid, new JObject { ["description"] = null }, renamed.IfMatch());
        Check(cleared["description"].Type == JTokenType.Null && (int)cleared["version"] == 2, "a null that clears a field, as raw JSON");
        var listed = await admin.Api.ItemsFindAllAsync(name: "like(moonsilver)", sortcost: SortDirection.DESC, limit: 10);
        Check(listed.Count == 1 && listed[0].Uid == read.Uid, "a filtered, sorted list");
        var gold = await admin.Api.ItemsCreateAsync(new CreateItemDto { Name = "Gold coin" });
        var throwaway = await admin.Api.ItemsCreateAsync(new CreateItemDto { Name = "Rusty nail" });
        await admin.Api.ItemsRemoveAsync(throwaway.Uid);
        try
        {
            await admin.Api.ItemsFindByIdAsync(throwaway.Uid);
            throw new Exception("a deleted item was found");
        }
        catch (ApiException error)
        {
            Check(error.StatusCode == 404 && error.Code() == "NOT_FOUND", "create, read, update, delete");
        }

        var art = await admin.Api.MediaAssetsCreateAsync(new CreateMediaAssetDto
        {
            Name = "Gold coin art",
            Files = new Dictionary<string, MediaFileDto>
            {
                ["default"] = new MediaFileDto { Mimetype = "image/png", Name = "coin.png", Uri = new Uri("https://cdn.example.com/coin.png") },
            },
        });
        var icon = Convert.FromBase64String("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=");
        var withIcon = await admin.UploadFileAsync(art.Uid, "icon", new System.IO.MemoryStream(icon), "image/png", "coin-icon.png", art.IfMatch());
        var stored = withIcon.Files["icon"];
        var served = await new HttpClient().GetByteArrayAsync(new Uri(new Uri(BaseUrl), stored.Uri.AbsolutePath));
        Check(stored.Size == icon.Length && stored.Name == "coin-icon.png" && served.SequenceEqual(icon), "a file uploaded, and served back");

        // The realtime socket of Alice, from now on.
        var events = new ConcurrentQueue<RealtimeEvent>();
        var closes = new ConcurrentQueue<SocketClosed>();
        var matched = new TaskCompletionSource<TicketUpdatedEvent>();
        var socket = alice.CreateSocket();
        socket.Received += events.Enqueue;
        socket.Closed += closes.Enqueue;
        socket.TicketUpdated += ticket =>
        {
            if (ticket.Data.Status == TicketStatus.MATCH_FOUND) matched.TrySetResult(ticket);
        };
        await socket.ConnectAsync();
        Check(socket.IsConnected && socket.LastEventId != null, "the socket opens");

        // Award and trade: the admin awards; Alice offers a dagger for 40 gold; Bob accepts.
        var items = new Func<Guid, int, List<ItemQuantityDto>>((item, quantity) => new List<ItemQuantityDto> { new ItemQuantityDto { ItemUid = item, Quantity = quantity } });
        var award = await admin.Api.InventoriesCreateTransactionAsync(new AwardTransactionDto { PersonaOneUid = aliceMe.Uid, PersonaOneInventoryItems = items(read.Uid, 3) });
        await admin.Api.InventoriesCreateTransactionAsync(new AwardTransactionDto { PersonaOneUid = bobMe.Uid, PersonaOneInventoryItems = items(gold.Uid, 100) });
        Check(award.Type == TransactionType.AWARD && award.Status == TransactionStatus.COMPLETED, "an award");
        var offer = await alice.Api.InventoriesCreateTransactionAsync(new TradeTransactionDto
        {
            PersonaOneUid = aliceMe.Uid,
            PersonaTwoUid = bobMe.Uid,
            PersonaOneInventoryItems = items(read.Uid, 1),
            PersonaTwoInventoryItems = items(gold.Uid, 40),
        }, idempotency_Key: "offer-" + Guid.NewGuid());
        var accepted = await bob.Api.TransactionsAcceptAsync(offer.Uid);
        var holdings = (await alice.Api.InventoriesFindAllAsync()).ToDictionary(row => row.ItemUid, row => row.Quantity);
        Check(offer.Status == TransactionStatus.PENDING && accepted.Status == TransactionStatus.COMPLETED &&
              holdings[read.Uid] == 2 && holdings[gold.Uid] == 40, "a trade offered, accepted, and the holdings moved");
        await Eventually(() => events.OfType<TransactionUpdatedEvent>().Any(e => e.Data.Uid == offer.Uid && e.Data.Status == TransactionStatus.COMPLETED), "the trade's event");
        Check(events.OfType<InventoryUpdatedEvent>().Any(e => e.Data.PersonaUid == aliceMe.Uid), "realtime events received, typed");

        // Cloud save from two devices: the phone creates the save, the tablet (Alice signed in again) reads it and
        // saves on its version, and the phone, still on the old one, is refused instead of overwriting.
        var tablet = new Client(BaseUrl);
        await tablet.SignInWithIdp1Async(await HarnessText("provider-token?subject=cs-alice"));
        var saved = await alice.WriteSaveAsync("saves", "slot-1", new SaveGame { Level = 3, Gold = 120 }, CloudSave.OnlyIfAbsent);
        await Eventually(() => events.OfType<StorageUpdatedEvent>().Any(e => e.Data.Key == "slot-1" && e.Data.Version == saved), "the save's storage.updated");
        var onTablet = await tablet.ReadSaveAsync<SaveGame>("saves", "slot-1");
        Check(onTablet.Value.Level == 3 && onTablet.Value.Gold == 120 && onTablet.Version == saved, "a save written on one device, read on another");
        var newer = await tablet.WriteSaveAsync("saves", "slot-1", new SaveGame { Level = 4, Gold = 80 }, onTablet.Version);
        try
        {
            await alice.WriteSaveAsync("saves", "slot-1", new SaveGame { Level = 3, Gold = 200 }, saved);
            throw new Exception("a save on a stale version was taken");
        }
        catch (ApiException error)
        {
            Check(error.IsVersionConflict() && error.CurrentStorageVersion() == newer, "a save on a stale version is a 409 with the version now");
        }
        Check(await bob.ReadSaveAsync<SaveGame>("saves", "slot-1", alice.Session.UserUid) == null &&
              (await alice.ReadSaveAsync<SaveGame>("saves", "slot-1")).Value.Level == 4, "another player does not read an OWNER save");
        var batch = await alice.Api.StorageWriteAsync(new WriteStorageDto
        {
            Objects = new List<StorageWriteDto>
            {
                CloudSave.Write("settings", "audio", new Dictionary<string, object> { ["music"] = 0.5, ["muted"] = false }),
                CloudSave.Write("settings", "controls", new Dictionary<string, object> { ["invertY"] = true }),
            },
        });
        var page = await alice.Api.StorageListAsync("settings");
        Check(batch.Acks.Count == 2 && page.Objects.Select(o => o.Key).SequenceEqual(new[] { "audio", "controls" }) && page.Cursor == null &&
              page.Objects[1].ValueAs<Dictionary<string, bool>>()["invertY"], "a batch of writes, listed back");
        // A leaderboard: scores past 2^53 travel as strings, pages walk with the cursor from a header, Alice hears of her score.
        var board = await admin.Api.LeaderboardsCreateAsync(new CreateLeaderboardDto { Name = "Weekly ladder " + Guid.NewGuid() });
        var aliceScore = await alice.Api.LeaderboardsSubmitAsync(board.Uid, new SubmitScoreDto { Score = Scores.Json(1200), Subscore = Scores.Json(-3) });
        var bobScore = await bob.Api.LeaderboardsSubmitAsync(board.Uid, new SubmitScoreDto { Score = Scores.Json(long.MaxValue) });
        Check(aliceScore.Rank == 1 && aliceScore.SubscoreValue() == -3 && bobScore.Rank == 1 && bobScore.ScoreValue() == long.MaxValue && bobScore.RankCount == 2,
            "scores submitted, a 64-bit one among them");
        var top = await alice.ReadLeaderboardAsync(board.Uid, limit: 1);
        var rest = await alice.ReadLeaderboardAsync(board.Uid, limit: 1, cursor: top.NextCursor);
        Check(top.Records.Single().PersonaUid == bobMe.Uid && top.NextCursor != null && rest.Records.Single().PersonaUid == aliceMe.Uid && rest.Records[0].Rank == 2 &&
              rest.NextCursor == null, "a board read page by page with its cursor");
        var mine = await alice.Api.LeaderboardsMineAsync(board.Uid);
        var around = await bob.Api.LeaderboardsAroundAsync(board.Uid, aliceMe.Uid, limit: 3);
        Check(mine.Single().Rank == 2 && around.Select(r => r.Rank).SequenceEqual(new int?[] { 1, 2 }), "my record, and the records around a persona");
        await Eventually(() => events.OfType<LeaderboardRecordUpdatedEvent>().Any(e => e.Data.LeaderboardUid == board.Uid && Scores.ToInt64(e.Data.Score) == 1200),
            "Alice's leaderboard.record_updated");
        try
        {
            await alice.Api.LeaderboardsSubmitAsync(board.Uid, new SubmitScoreDto { Score = 1.5 });
            throw new Exception("a float score was taken");
        }
        catch (ApiException error)
        {
            Check(error.StatusCode == 400 && error.Code() == "VALIDATION_FAILED", "a float score is a 400");
        }

        // A two-player match through tickets: both queue, the matchmaker runs, both are placed together.
        var criteria = new List<CriterionDto> { new CriterionDto { Name = "skill", MinValue = 1000, MaxValue = 1400 } };
        var aliceTicket = await alice.Api.TicketsCreateAsync(new CreateTicketDto
        {
            NumTeams = 2,
            TeamSize = 1,
            Criteria = criteria,
            Statistics = new List<StatisticDto> { new StatisticDto { Name = "skill", Value = 1200 } },
        });
        var bobTicket = await bob.Api.TicketsCreateAsync(new CreateTicketDto
        {
            NumTeams = 2,
            TeamSize = 1,
            Criteria = criteria,
            Statistics = new List<StatisticDto> { new StatisticDto { Name = "skill", Value = 1250 } },
        });
        await HarnessPost("matchmake");
        var match = await Within(matched.Task, "Alice's MATCH_FOUND");
        var bobPlaced = await bob.Api.TicketsFindByIdAsync(bobTicket.Uid);
        var game = await bob.Api.SessionsFindByIdAsync(bobPlaced.SessionUid.Value);
        Check(match.Data.Uid == aliceTicket.Uid && match.Data.SessionUid == bobPlaced.SessionUid &&
              game.Users.Contains(alice.Session.UserUid) && game.Users.Contains(bob.Session.UserUid), "a two-player match through tickets");
        var duo = await admin.Api.TicketsCreateAsync(new CreateTicketDto { NumTeams = 2, TeamSize = 2 });
        var updated = await admin.Api.TicketsUpdateAsync(duo.Uid, new UpdateTicketDto { Statistics = new List<StatisticDto> { new StatisticDto { Name = "skill", Value = 1210 } } }, duo.IfMatch());
        await admin.Api.TicketsRemoveAsync(duo.Uid);
        Check(updated.TeamSize == 2 && updated.Statistics.Count == 1, "an update sends only what it sets (no default resets teamSize)");

        // A dropped socket resumes where it was: the events written while it was down arrive once, in order.
        var before = events.Count;
        var closedBefore = closes.Count;
        await HarnessPost("cut-sockets");
        await Eventually(() => closes.Count > closedBefore, "the socket to notice the drop");
        for (var i = 0; i < 5; i++)
        {
            await admin.Api.InventoriesCreateTransactionAsync(new AwardTransactionDto { PersonaOneUid = aliceMe.Uid, PersonaOneInventoryItems = items(gold.Uid, 1) });
        }
        await Eventually(() => events.OfType<InventoryUpdatedEvent>().Count(e => e.Data.Holdings.Any(h => h.ItemUid == gold.Uid && h.Quantity == 45)) == 1, "the last award's event");
        var inbox = await alice.Api.RealtimeNotificationsAsync(limit: 1000);
        var received = events.Select(e => e.Id).ToList();
        var expected = inbox.Select(e => e.Id).SkipWhile(id => id != received.First()).ToList();
        Check(closes.Last().WillReconnect && socket.IsConnected, "the dropped socket reconnected by itself");
        Check(received.SequenceEqual(expected) && received.Distinct().Count() == received.Count && events.Count - before >= 10,
            "no event lost or repeated across the drop (" + received.Count + " events, the inbox's)");
        await socket.CloseAsync();
        Check(!closes.Last().WillReconnect, "closed on request, for good");

        // Retries: a 429 honouring Retry-After; a POST without an Idempotency-Key is not sent twice; with one it is.
        var retries = new ConcurrentQueue<RetryInfo>();
        admin.Retrying += retries.Enqueue;
        await HarnessPost("fail?method=GET&path=/items&status=429&retryAfter=1&times=1");
        var started = DateTime.UtcNow;
        var afterRetry = await admin.Api.ItemsFindAllAsync(limit: 1);
        Check(afterRetry.Count == 1 && retries.Count == 1 && retries.First().Status == 429 && DateTime.UtcNow - started >= TimeSpan.FromSeconds(1),
            "a 429 retried after its Retry-After");
        await HarnessPost("fail?method=POST&path=/items&status=503&retryAfter=1&times=1");
        try
        {
            await admin.Api.ItemsCreateAsync(new CreateItemDto { Name = "Once" });
            throw new Exception("the injected 503 did not reach the caller");
        }
        catch (ApiException error)
        {
            Check(error.StatusCode == 503 && retries.Count == 1, "a POST without an Idempotency-Key is not retried");
        }
        await HarnessPost("fail?method=POST&path=/items&status=503&retryAfter=1&times=1&code=OVERLOADED");
        var shedOnce = await admin.Api.ItemsCreateAsync(new CreateItemDto { Name = "Shed once" });
        Check(shedOnce.Name == "Shed once" && retries.Count == 2 && retries.Last().Status == 503,
            "a POST shed with 503 OVERLOADED (nothing done) is sent again");
        await HarnessPost("fail?method=POST&path=/inventories/transaction&status=503&retryAfter=1&times=1");
        var keyed = await admin.Api.InventoriesCreateTransactionAsync(new AwardTransactionDto { PersonaOneUid = adminMe.Uid, PersonaOneInventoryItems = items(gold.Uid, 1) }, idempotency_Key: "award-" + Guid.NewGuid());
        Check(keyed.Status == TransactionStatus.COMPLETED && retries.Count == 3, "a POST with an Idempotency-Key is retried");
    }

    public sealed class SaveGame
    {
        public int Level { get; set; }
        public int Gold { get; set; }
    }

    private static async Task DeviceStepsAsync()
    {
        var dataPath = Path.Combine(Path.GetTempPath(), "cs-sdk-" + Guid.NewGuid().ToString("N"));
        try
        {
            var device = new DeviceId(dataPath);
            var guest = new Client(BaseUrl);
            var first = await guest.AuthenticateDeviceAsync(device);
            var persona = (await guest.Api.PersonasFindAllAsync()).Single();
            // Another run of the game: a new client, the id read back from the file.
            var again = await new Client(BaseUrl).AuthenticateDeviceAsync(dataPath, create: false);
            Check(File.Exists(device.FilePath) && again.UserUid == first.UserUid && persona.Name == "Guest",
                "a guest signs in on a device, and again from the id kept in the persistent data path");
            try
            {
                await new Client(BaseUrl).AuthenticateDeviceAsync(new DeviceId(Path.Combine(dataPath, "other")), create: false);
                throw new Exception("a device with no account signed in");
            }
            catch (ApiException error)
            {
                Check(error.StatusCode == 404 && error.Code() == "NO_SUCH_ACCOUNT", "create: false is a 404 NO_SUCH_ACCOUNT for a new device");
            }

            var providerToken = await HarnessText("provider-token?subject=cs-guest-" + Guid.NewGuid().ToString("N"));
            var linked = await guest.Api.AccountLinkIdp1Async(new LinkProviderDto { Token = providerToken });
            var elsewhere = new Client(BaseUrl);
            await elsewhere.SignInWithIdp1Async(providerToken);
            var kept = (await elsewhere.Api.PersonasFindAllAsync()).Single();
            Check(linked.Identities.Count == 2 && elsewhere.Session.UserUid == first.UserUid && kept.Uid == persona.Uid,
                "the guest links idp1, and idp1 alone signs in to the same account elsewhere");

            var unlinked = await elsewhere.UnlinkDeviceAsync(device);
            Check(unlinked.Identities.Single().Provider == IdentityProvider.Idp1 && !device.Exists, "the device unlinked, and its id forgotten");
            try
            {
                await guest.Api.PersonasFindAllAsync();
                throw new Exception("an unlinked device's session still works");
            }
            catch (ApiException error)
            {
                Check(error.StatusCode == 401, "the unlinked device's session ends");
            }
            try
            {
                await elsewhere.Api.AccountUnlinkAsync(IdentityProvider.Idp1, new UnlinkDto());
                throw new Exception("the last identity was unlinked");
            }
            catch (ApiException error)
            {
                Check(error.StatusCode == 409 && error.Code() == "LAST_IDENTITY", "the last identity stays: 409 LAST_IDENTITY");
            }
        }
        finally
        {
            if (Directory.Exists(dataPath)) Directory.Delete(dataPath, true);
        }
    }

    private static void Check(bool condition, string what)
    {
        if (!condition) throw new Exception("check failed: " + what);
        _checks++;
        Console.WriteLine("ok " + what);
    }

    private static async Task Eventually(Func<bool> condition, string what)
    {
        var deadline = DateTime.UtcNow.AddSeconds(15);
        while (!condition())
        {
            if (DateTime.UtcNow > deadline) throw new Exception("timed out waiting for " + what);
            await Task.Delay(50);
        }
    }

    private static async Task<T> Within<T>(Task<T> task, string what)
    {
        if (await Task.WhenAny(task, Task.Delay(TimeSpan.FromSeconds(15))) != task) throw new Exception("timed out waiting for " + what);
        return await task;
    }

    private static async Task<string> HarnessText(string path)
    {
        return await Harness.GetStringAsync("__harness/" + path);
    }

    private static async Task HarnessPost(string path)
    {
        var response = await Harness.PostAsync("__harness/" + path, null);
        response.EnsureSuccessStatusCode();
    }
}
