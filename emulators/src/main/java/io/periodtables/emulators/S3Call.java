package io.periodtables.emulators;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One S3 request as {@link S3CallRecorder} saw it (path-style addressing): method, bucket, key
 * (empty for a bucket request), the query parameters, the source of a copy, and the keys a
 * multi-object delete names. {@link #permissions()} says what IAM checks it against.
 */
public record S3Call(
        String method,
        String bucket,
        String key,
        Map<String, String> query,
        Optional<String> copySource,
        List<String> deletedKeys) {

    public S3Call {
        query = Map.copyOf(query);
        deletedKeys = List.copyOf(deletedKeys);
    }

    /**
     * An IAM action on a resource ({@code arn:aws:s3:::bucket} or {@code arn:aws:s3:::bucket/key}); {@code prefix} for
     * ListBucket.
     */
    public record Permission(String action, String resource, Optional<String> prefix) {
        @Override
        public String toString() {
            return action + " " + resource
                    + prefix.map(p -> " (s3:prefix=" + p + ")").orElse("");
        }
    }

    /**
     * The permissions IAM checks for this request, from the S3 API reference's "Permissions"
     * sections: the multipart calls (create, upload part, complete) need {@code s3:PutObject}, a
     * copy also {@code s3:GetObject} on its source, a multi-object delete {@code s3:DeleteObject}
     * on each key. Throws for a request this mapping does not know, so nothing passes unmapped.
     */
    public List<Permission> permissions() {
        String bucketArn = "arn:aws:s3:::" + bucket;
        String objectArn = bucketArn + "/" + key;
        boolean onObject = !key.isEmpty();
        List<Permission> needed = new ArrayList<>();
        if (onObject) {
            switch (method) {
                case "PUT", "POST" -> {
                    needed.add(object("s3:PutObject", objectArn));
                    copySource.ifPresent(source -> needed.add(object("s3:GetObject", "arn:aws:s3:::" + source)));
                }
                case "GET" ->
                    needed.add(object(
                            query.containsKey("uploadId") ? "s3:ListMultipartUploadParts" : "s3:GetObject", objectArn));
                case "HEAD" -> needed.add(object("s3:GetObject", objectArn));
                case "DELETE" ->
                    needed.add(object(
                            query.containsKey("uploadId") ? "s3:AbortMultipartUpload" : "s3:DeleteObject", objectArn));
                default -> throw unknown();
            }
        } else if (method.equals("POST") && query.containsKey("delete")) {
            deletedKeys.forEach(k -> needed.add(object("s3:DeleteObject", bucketArn + "/" + k)));
        } else if (method.equals("GET") && query.containsKey("uploads")) {
            needed.add(new Permission(
                    "s3:ListBucketMultipartUploads", bucketArn, Optional.ofNullable(query.get("prefix"))));
        } else if (method.equals("GET") && query.containsKey("location")) {
            needed.add(object("s3:GetBucketLocation", bucketArn));
        } else if (method.equals("GET") || method.equals("HEAD")) {
            // ListObjects (V1 and V2) and HeadBucket
            needed.add(new Permission("s3:ListBucket", bucketArn, Optional.ofNullable(query.get("prefix"))));
        } else if (method.equals("PUT") && query.isEmpty()) {
            needed.add(object("s3:CreateBucket", bucketArn));
        } else {
            throw unknown();
        }
        return needed;
    }

    private static Permission object(String action, String resource) {
        return new Permission(action, resource, Optional.empty());
    }

    private IllegalStateException unknown() {
        return new IllegalStateException("no IAM mapping for " + this);
    }

    @Override
    public String toString() {
        return method + " /" + bucket + (key.isEmpty() ? "" : "/" + key) + (query.isEmpty() ? "" : " " + query)
                + copySource.map(s -> " copy of " + s).orElse("")
                + (deletedKeys.isEmpty() ? "" : " deleting " + deletedKeys);
    }
}
