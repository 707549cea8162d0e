using System;
using GameBackend.Api;

namespace GameBackend.Api
{
    /// <summary>A stored record: its <see cref="Version"/> is what an update states to be safe (If-Match).</summary>
    public interface IVersionedRecord
    {
        Guid Uid { get; }
        int Version { get; }
    }

    // The records the service stores, as the generated classes (partial) name them.
    public partial class Persona : IVersionedRecord { }
    public partial class Item : IVersionedRecord { }
    public partial class Session : IVersionedRecord { }
    public partial class Ticket : IVersionedRecord { }
    public partial class InventoryItem : IVersionedRecord { }
    public partial class InventoryTransaction : IVersionedRecord { }
    public partial class SkillProgress : IVersionedRecord { }
    public partial class MediaAsset : IVersionedRecord { }
    public partial class TextAsset : IVersionedRecord { }
    public partial class AchievementDefinition : IVersionedRecord { }
    public partial class AchievementUnlock : IVersionedRecord { }
}

namespace GameBackend
{
    /// <summary>
    /// <c>If-Match</c> values for the <c>ifMatch</c> argument of updates: with the version you read, the
    /// update applies only if nobody changed the record since (else a 409 VERSION_CONFLICT, and nothing
    /// changes); <see cref="Any"/> or none applies it whatever the version.
    /// </summary>
    public static class Versions
    {
        public const string Any = "*";

        /// <summary>The version as the record's ETag: <c>"3"</c>.</summary>
        public static string IfMatch(int version)
        {
            return "\"" + version.ToString(System.Globalization.CultureInfo.InvariantCulture) + "\"";
        }

        /// <summary>The If-Match of the record as read: <c>api.ItemsUpdateAsync(item.Uid, changes, item.IfMatch())</c>.</summary>
        public static string IfMatch(this IVersionedRecord record)
        {
            return IfMatch(record.Version);
        }
    }

    /// <summary>Reading the service's errors: every failed call throws ApiException, with the ErrorBody when the answer had one.</summary>
    public static class ApiErrors
    {
        /// <summary>The error's stable code (VERSION_CONFLICT, INSUFFICIENT_QUANTITY, …), or null when the answer had no ErrorBody.</summary>
        public static string Code(this ApiException error)
        {
            var typed = error as ApiException<ErrorBody>;
            return typed == null || typed.Result == null ? null : typed.Result.Code.ToString();
        }

        /// <summary>An update stated a version that is no longer the record's: read it again, then retry.</summary>
        public static bool IsVersionConflict(this ApiException error)
        {
            return error.StatusCode == 409 && error.Code() == "VERSION_CONFLICT";
        }
    }
}
