using System;
using System.IO;
using System.Security.Cryptography;

namespace GameBackend
{
    /// <summary>
    /// This device's id for guest sign-in (<see cref="Client.AuthenticateDeviceAsync(DeviceId, bool, System.Threading.CancellationToken)"/>):
    /// made once, from 32 random bytes, and kept in a file of the game's persistent data path
    /// (Unity: <c>Application.persistentDataPath</c>), which survives restarts and updates of the game but
    /// not its uninstall. Whoever has the id is the guest: it is never logged and never leaves the device
    /// but to the service. Link an identity provider to keep the account past an uninstall or a new phone.
    /// </summary>
    public sealed class DeviceId
    {
        /// <summary>The file's name in the persistent data path.</summary>
        public const string FileName = "game-backend-device-id";

        private readonly object _lock = new object();

        /// <summary>The file that holds the id.</summary>
        public string FilePath { get; private set; }

        /// <param name="persistentDataPath">A folder kept across runs: Unity's <c>Application.persistentDataPath</c>.</param>
        public DeviceId(string persistentDataPath)
        {
            if (string.IsNullOrEmpty(persistentDataPath)) throw new ArgumentException("persistentDataPath is required", "persistentDataPath");
            FilePath = Path.Combine(persistentDataPath, FileName);
        }

        /// <summary>Whether this device has an id yet (it has signed in as a guest, or linked itself).</summary>
        public bool Exists
        {
            get { return Read() != null; }
        }

        /// <summary>The id, made and saved the first time.</summary>
        public string GetOrCreate()
        {
            lock (_lock)
            {
                var kept = Read();
                if (kept != null) return kept;
                var bytes = new byte[32];
                using (var random = RandomNumberGenerator.Create()) random.GetBytes(bytes);
                // base64url: 43 printable characters, within the service's 16 to 128.
                var id = Convert.ToBase64String(bytes).TrimEnd('=').Replace('+', '-').Replace('/', '_');
                Directory.CreateDirectory(Path.GetDirectoryName(FilePath));
                // Written aside and moved into place: a crash mid-write must not leave half an id, which
                // would sign in as a new guest and lose the account.
                var written = FilePath + ".new";
                File.WriteAllText(written, id);
                if (File.Exists(FilePath)) File.Delete(FilePath);
                File.Move(written, FilePath);
                return id;
            }
        }

        /// <summary>
        /// Forgets the id (after unlinking this device, or to start over as a new guest): the next
        /// <see cref="GetOrCreate"/> makes another. The account of the old id is not deleted.
        /// </summary>
        public void Forget()
        {
            lock (_lock)
            {
                if (File.Exists(FilePath)) File.Delete(FilePath);
            }
        }

        private string Read()
        {
            if (!File.Exists(FilePath)) return null;
            var id = File.ReadAllText(FilePath).Trim();
            return id.Length >= 16 ? id : null;
        }
    }
}
