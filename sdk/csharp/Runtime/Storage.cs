using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Api;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace GameBackend
{
    /// <summary>A cloud save read back: its value as your class, and the version to state when you write it again.</summary>
    public sealed class StoredValue<T>
    {
        internal StoredValue(T value, StorageObject stored)
        {
            Value = value;
            Stored = stored;
        }

        public T Value { get; private set; }

        /// <summary>The version of the value (a hash of it, not a counter): pass it to WriteSaveAsync so that a newer save from another device is not overwritten.</summary>
        public string Version { get { return Stored.Version; } }

        /// <summary>The object as the service answered it (owner, permissions, dates).</summary>
        public StorageObject Stored { get; private set; }
    }

    /// <summary>
    /// Cloud save with your own classes as the values (serialized by Newtonsoft.Json; a value is a JSON
    /// object, so a class or a dictionary, at most STORAGE_VALUE_MAX_BYTES of JSON). For batches of up to
    /// 100 objects, build them with <see cref="Write{T}"/> and send them with <c>client.Api.StorageWriteAsync</c>:
    /// they commit together or not at all.
    /// </summary>
    public static class CloudSave
    {
        /// <summary>The version to state to create an object only if it does not exist yet.</summary>
        public const string OnlyIfAbsent = "*";

        /// <summary>The object's value as <typeparamref name="T"/>, or null when it does not exist or the player may not read it.</summary>
        public static async Task<StoredValue<T>> ReadSaveAsync<T>(this Client client, string collection, string key, Guid? ownerUid = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var request = new ReadStorageDto { Objects = new List<StorageRefDto> { new StorageRefDto { Collection = collection, Key = key, OwnerUid = ownerUid } } };
            var read = await client.Api.StorageReadAsync(request, cancellationToken: cancellationToken).ConfigureAwait(false);
            var stored = read.Objects.FirstOrDefault();
            return stored == null ? null : new StoredValue<T>(stored.ValueAs<T>(), stored);
        }

        /// <summary>
        /// Writes <paramref name="value"/> as the player's object and answers its new version. <paramref name="version"/>:
        /// null writes whatever is stored; <see cref="OnlyIfAbsent"/> only creates; a version read earlier replaces only
        /// that version, else an ApiException for which <c>IsVersionConflict()</c> is true and
        /// <see cref="CurrentStorageVersion"/> says the version now (null: there is none). A PUT is retried after a
        /// lost answer: a conditional write that had committed then meets its own version as the current one.
        /// </summary>
        public static async Task<string> WriteSaveAsync<T>(this Client client, string collection, string key, T value, string version = null,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            var request = new WriteStorageDto { Objects = new List<StorageWriteDto> { Write(collection, key, value, version) } };
            var answer = await client.Api.StorageWriteAsync(request, cancellationToken: cancellationToken).ConfigureAwait(false);
            return answer.Acks[0].Version;
        }

        /// <summary>One write of a batch (PUT /storage, or an economy transaction's <c>StorageWrites</c>), its value serialized from <paramref name="value"/>.</summary>
        public static StorageWriteDto Write<T>(string collection, string key, T value, string version = null)
        {
            var json = JToken.FromObject(value, JsonSerializer.CreateDefault()) as JObject;
            if (json == null) throw new ArgumentException("a storage value is a JSON object: a class or a dictionary, not an array or a scalar", "value");
            return new StorageWriteDto { Collection = collection, Key = key, Value = json, Version = version };
        }

        /// <summary>A stored object's value as <typeparamref name="T"/>.</summary>
        public static T ValueAs<T>(this StorageObject stored)
        {
            var json = stored.Value as JToken ?? JToken.FromObject(stored.Value);
            return json.ToObject<T>();
        }

        /// <summary>On a VERSION_CONFLICT of a storage write or delete: the object's version now (null: it does not exist, or not that error).</summary>
        public static string CurrentStorageVersion(this ApiException error)
        {
            var typed = error as ApiException<ErrorBody>;
            return typed == null || typed.Result == null || typed.Result.StorageObject == null ? null : typed.Result.StorageObject.CurrentVersion;
        }
    }
}
