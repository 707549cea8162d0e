using System;
using System.IO;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Api;

namespace GameBackend
{
    /// <summary>
    /// Uploading a file to a media asset's variant (admins): <c>PUT /assets/media/{id}/files/{variant}</c>
    /// with the bytes as the body. The service answers the asset, the variant's <c>Uri</c> pointing at the
    /// stored bytes.
    /// </summary>
    public static class MediaUploads
    {
        /// <summary>
        /// Uploads <paramref name="data"/> as <paramref name="contentType"/> (on the service's MEDIA_TYPES). A
        /// seekable stream is hashed first and its SHA-256 sent as <c>Content-Digest</c>, so that bytes damaged
        /// on the way are refused (400 DIGEST_MISMATCH) rather than stored. The retry layer holds a request's
        /// body in memory to send it again: for files of tens of MB, prefer a direct upload to an S3 store.
        /// </summary>
        public static Task<MediaAsset> UploadFileAsync(this Client client, Guid assetId, string variant, Stream data, string contentType,
            string fileName = null, string ifMatch = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (data == null) throw new ArgumentNullException("data");
            if (contentType == null) throw new ArgumentNullException("contentType");
            string digest = null;
            if (data.CanSeek)
            {
                var start = data.Position;
                using (var sha256 = SHA256.Create()) digest = ContentDigest(sha256.ComputeHash(data));
                data.Position = start;
            }
            var body = new FileParameter(data, fileName, contentType);
            return client.Api.MediaAssetsUploadAsync(assetId, variant, body, ifMatch, digest, null, null, fileName, cancellationToken: cancellationToken);
        }

        /// <summary>Uploads the file at <paramref name="path"/>, named as it is on disk.</summary>
        public static async Task<MediaAsset> UploadFileAsync(this Client client, Guid assetId, string variant, string path, string contentType,
            string ifMatch = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            using (var file = File.OpenRead(path))
            {
                return await client.UploadFileAsync(assetId, variant, file, contentType, Path.GetFileName(path), ifMatch, cancellationToken)
                    .ConfigureAwait(false);
            }
        }

        /// <summary>RFC 9530's <c>Content-Digest</c> of a SHA-256: <c>sha-256=:&lt;base64&gt;:</c>.</summary>
        public static string ContentDigest(byte[] sha256)
        {
            return "sha-256=:" + Convert.ToBase64String(sha256) + ":";
        }
    }
}
