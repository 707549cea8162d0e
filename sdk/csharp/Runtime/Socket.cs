using System;
using System.IO;
using System.Net.WebSockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Api;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace GameBackend
{
    /// <summary>Why the socket closed, and whether it reconnects by itself.</summary>
    public sealed class SocketClosed
    {
        /// <summary>The close code (docs/REALTIME.md), or null when the connection broke without one.</summary>
        public int? Code { get; internal set; }
        public string Reason { get; internal set; }
        /// <summary>False after <see cref="Socket.CloseAsync"/> or a 4403 (session revoked, user banned: sign in again).</summary>
        public bool WillReconnect { get; internal set; }
    }

    /// <summary>
    /// The player's realtime socket (docs/REALTIME.md): the events that concern them, as they happen, as
    /// typed objects. It reconnects by itself with back-off and resumes after the last event received
    /// (<c>?after=</c>), so that no event is lost or received twice across a dropped connection.
    /// Events are raised on the SynchronizationContext the socket was created on (Unity's main thread
    /// when created from a MonoBehaviour), else on a pool thread, in order.
    /// </summary>
    public sealed class Socket : IDisposable
    {
        /// <summary>The service closed the socket for good: the session was revoked or the user banned.</summary>
        public const int Revoked = 4403;
        /// <summary>The token expired: the socket renews it and reconnects.</summary>
        public const int TokenExpired = 4401;

        private const int MaxFrameBytes = 64 * 1024;
        private readonly Client _client;
        private readonly SynchronizationContext _context;
        private readonly object _lock = new object();
        private CancellationTokenSource _stop;
        private ClientWebSocket _current;
        private Task _running;
        private volatile bool _closing;
        private int _failures;

        /// <summary>The first wait before reconnecting, doubling up to <see cref="MaxBackoff"/> (full jitter).</summary>
        public TimeSpan InitialBackoff { get; set; }
        public TimeSpan MaxBackoff { get; set; }

        /// <summary>The id of the last event received: pass it to ConnectAsync in a later run to miss nothing.</summary>
        public string LastEventId { get; private set; }

        public bool IsConnected
        {
            get { var current = _current; return current != null && current.State == WebSocketState.Open; }
        }

        /// <summary>A socket opened (again) and the service is sending; the argument is where it resumed.</summary>
        public event Action<string> Connected;
        public event Action<SocketClosed> Closed;
        /// <summary>Every event, as its own class (TicketUpdatedEvent, …); a type this SDK does not know arrives as RealtimeEvent.</summary>
        public event Action<RealtimeEvent> Received;
        public event Action<TicketUpdatedEvent> TicketUpdated;
        public event Action<SessionUpdatedEvent> SessionUpdated;
        public event Action<SessionInvitedEvent> SessionInvited;
        public event Action<SessionDeletedEvent> SessionDeleted;
        public event Action<TransactionPendingEvent> TransactionPending;
        public event Action<TransactionUpdatedEvent> TransactionUpdated;
        public event Action<InventoryUpdatedEvent> InventoryUpdated;
        public event Action<AchievementUnlockedEvent> AchievementUnlocked;
        /// <summary>A storage object of the player changed on another device (or by the game server): re-read it unless you hold its version.</summary>
        public event Action<StorageUpdatedEvent> StorageUpdated;
        public event Action<LeaderboardRecordUpdatedEvent> LeaderboardRecordUpdated;
        public event Action<LeaderboardRankLostEvent> LeaderboardRankLost;
        public event Action<LeaderboardPeriodEndedEvent> LeaderboardPeriodEnded;
        /// <summary>A frame that could not be read, or a handler that threw: reported, never fatal.</summary>
        public event Action<Exception> Error;

        internal Socket(Client client)
        {
            _client = client;
            _context = SynchronizationContext.Current;
            InitialBackoff = TimeSpan.FromMilliseconds(500);
            MaxBackoff = TimeSpan.FromSeconds(30);
        }

        /// <summary>
        /// Starts the socket and returns once it first opened (or throws if it could not). It keeps
        /// reconnecting until <see cref="CloseAsync"/>. <paramref name="after"/>: resume after this event id.
        /// </summary>
        public async Task ConnectAsync(string after = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            var opened = new TaskCompletionSource<bool>();
            lock (_lock)
            {
                if (_running != null) throw new InvalidOperationException("the socket is already started");
                _stop = new CancellationTokenSource();
                LastEventId = after ?? LastEventId;
                _running = Task.Run(() => RunAsync(opened, _stop.Token));
            }
            try
            {
                using (cancellationToken.Register(() => opened.TrySetCanceled()))
                {
                    await opened.Task.ConfigureAwait(false);
                }
            }
            catch (Exception)
            {
                await CloseAsync().ConfigureAwait(false);
                throw;
            }
        }

        /// <summary>Closes the socket and stops reconnecting.</summary>
        public async Task CloseAsync()
        {
            Task running;
            lock (_lock)
            {
                running = _running;
                if (running == null) return;
                _closing = true;
            }
            // The close frame first, so that the service sees a clean close; the receive loop then ends
            // on the service's answer. Cancelling before would abort the socket instead.
            var current = _current;
            if (current != null && current.State == WebSocketState.Open)
            {
                try
                {
                    using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(2)))
                        await current.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, "client closed", timeout.Token).ConfigureAwait(false);
                }
                catch (Exception) { current.Abort(); }
            }
            if (await Task.WhenAny(running, Task.Delay(TimeSpan.FromSeconds(2))).ConfigureAwait(false) != running) _stop.Cancel();
            try { await running.ConfigureAwait(false); } catch (OperationCanceledException) { }
            lock (_lock)
            {
                _stop.Cancel();
                _running = null;
                _closing = false;
            }
        }

        public void Dispose()
        {
            CloseAsync().GetAwaiter().GetResult();
        }

        private async Task RunAsync(TaskCompletionSource<bool> opened, CancellationToken stop)
        {
            while (!stop.IsCancellationRequested && !_closing)
            {
                int? code = null;
                string reason = null;
                using (var socket = new ClientWebSocket())
                {
                    try
                    {
                        var session = _client.Session;
                        if (session == null) throw new InvalidOperationException("sign in before opening the socket");
                        if (session.ExpiresWithin(_client.RefreshMargin)) await _client.RefreshAsync(stop).ConfigureAwait(false);
                        socket.Options.SetRequestHeader("Authorization", "Bearer " + session.Token);
                        socket.Options.KeepAliveInterval = TimeSpan.FromSeconds(20);
                        await socket.ConnectAsync(SocketUri(), stop).ConfigureAwait(false);
                        _current = socket;
                        await ReceiveAsync(socket, opened, stop).ConfigureAwait(false);
                        if (socket.CloseStatus.HasValue) code = (int)socket.CloseStatus.Value;
                        reason = socket.CloseStatusDescription;
                    }
                    catch (Exception error) when (!stop.IsCancellationRequested && !_closing)
                    {
                        reason = error.Message;
                        // The first connection failed: ConnectAsync reports it, and nothing reconnects.
                        if (opened.TrySetException(error)) return;
                        if (error is InvalidOperationException)
                        {
                            // Signed out meanwhile: there is no token to reconnect with.
                            Raise(Closed, new SocketClosed { Code = null, Reason = reason, WillReconnect = false });
                            return;
                        }
                    }
                    catch (Exception) when (stop.IsCancellationRequested || _closing)
                    {
                        // Closing: whatever the socket threw while it was torn down.
                    }
                    finally
                    {
                        _current = null;
                    }
                }
                var willReconnect = !stop.IsCancellationRequested && !_closing && code != Revoked;
                Raise(Closed, new SocketClosed { Code = code, Reason = reason, WillReconnect = willReconnect });
                if (!willReconnect) return;
                if (code == TokenExpired)
                {
                    try { await _client.RefreshAsync(stop).ConfigureAwait(false); } catch (Exception error) when (!(error is OperationCanceledException)) { Raise(Error, error); }
                }
                try { await Task.Delay(NextBackoff(), stop).ConfigureAwait(false); } catch (OperationCanceledException) { return; }
            }
        }

        private Uri SocketUri()
        {
            var builder = new UriBuilder(new Uri(_client.BaseUrl, "realtime"));
            builder.Scheme = builder.Scheme == "https" ? "wss" : "ws";
            if (LastEventId != null) builder.Query = "after=" + Uri.EscapeDataString(LastEventId);
            return builder.Uri;
        }

        private TimeSpan NextBackoff()
        {
            var cap = Math.Min(MaxBackoff.TotalMilliseconds, InitialBackoff.TotalMilliseconds * Math.Pow(2, _failures));
            _failures = Math.Min(_failures + 1, 30);
            return TimeSpan.FromMilliseconds(ThreadSafeRandom.NextDouble() * cap);
        }

        private async Task ReceiveAsync(ClientWebSocket socket, TaskCompletionSource<bool> opened, CancellationToken stop)
        {
            var buffer = new byte[8 * 1024];
            using (var message = new MemoryStream())
            {
                while (socket.State == WebSocketState.Open)
                {
                    var chunk = await socket.ReceiveAsync(new ArraySegment<byte>(buffer), stop).ConfigureAwait(false);
                    if (chunk.MessageType == WebSocketMessageType.Close) return;
                    message.Write(buffer, 0, chunk.Count);
                    if (message.Length > MaxFrameBytes) throw new InvalidDataException("a frame over " + MaxFrameBytes + " bytes");
                    if (!chunk.EndOfMessage) continue;
                    var text = Encoding.UTF8.GetString(message.GetBuffer(), 0, (int)message.Length);
                    message.SetLength(0);
                    OnFrame(text, opened);
                }
            }
        }

        private void OnFrame(string text, TaskCompletionSource<bool> opened)
        {
            RealtimeEvent frame;
            string type;
            try
            {
                type = (string)JObject.Parse(text)["type"];
                frame = JsonConvert.DeserializeObject<RealtimeEvent>(text);
            }
            catch (JsonException error)
            {
                Raise(Error, error);
                return;
            }
            if (type == "realtime.ready")
            {
                _failures = 0;
                // Without a resume point, where the socket starts is one: nothing after it is missed.
                if (LastEventId == null) LastEventId = frame.Id;
                opened.TrySetResult(true);
                Raise(Connected, LastEventId);
                return;
            }
            LastEventId = frame.Id;
            Dispatch(frame);
        }

        private void Dispatch(RealtimeEvent frame)
        {
            Post(() =>
            {
                Invoke(Received, frame);
                Invoke(TicketUpdated, frame as TicketUpdatedEvent);
                Invoke(SessionUpdated, frame as SessionUpdatedEvent);
                Invoke(SessionInvited, frame as SessionInvitedEvent);
                Invoke(SessionDeleted, frame as SessionDeletedEvent);
                Invoke(TransactionPending, frame as TransactionPendingEvent);
                Invoke(TransactionUpdated, frame as TransactionUpdatedEvent);
                Invoke(InventoryUpdated, frame as InventoryUpdatedEvent);
                Invoke(AchievementUnlocked, frame as AchievementUnlockedEvent);
                Invoke(StorageUpdated, frame as StorageUpdatedEvent);
                Invoke(LeaderboardRecordUpdated, frame as LeaderboardRecordUpdatedEvent);
                Invoke(LeaderboardRankLost, frame as LeaderboardRankLostEvent);
                Invoke(LeaderboardPeriodEnded, frame as LeaderboardPeriodEndedEvent);
            });
        }

        private void Raise<T>(Action<T> handlers, T value) where T : class
        {
            Post(() => Invoke(handlers, value));
        }

        private void Invoke<T>(Action<T> handlers, T value) where T : class
        {
            if (handlers == null || value == null) return;
            try { handlers(value); }
            catch (Exception error) { if (!ReferenceEquals(handlers, Error)) Invoke(Error, error); }
        }

        private void Post(Action action)
        {
            if (_context != null) _context.Post(_ => action(), null);
            else action();
        }

        private static class ThreadSafeRandom
        {
            private static readonly Random Shared = new Random();

            public static double NextDouble()
            {
                lock (Shared) return Shared.NextDouble();
            }
        }
    }
}
