package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The artifact OpenTofu's oci_mirror installs (OpenTofu 1.10 and newer): a
// tag named after the version, on an index manifest of the provider's
// artifact type, listing one image manifest per platform, each of the
// target's artifact type with that platform's os and architecture, and
// holding one layer: the platform's zip, the same bytes the network mirror
// serves.
const (
	ociProviderArtifactType = "application/vnd.opentofu.provider"
	ociTargetArtifactType   = "application/vnd.opentofu.provider-target"
	ociPackageMediaType     = types.MediaType("archive/zip")
	// ociEmptyMediaType is OCI 1.1's empty descriptor: an artifact's config
	// when it has nothing to configure, the two bytes {}.
	ociEmptyMediaType = types.MediaType("application/vnd.oci.empty.v1+json")
)

// OCITag is the tag OpenTofu looks for: the version, with "_" for "+"
// (tags cannot hold a plus sign).
func OCITag(version string) string { return strings.ReplaceAll(version, "+", "_") }

// PushOCI publishes the archives Write made (in o.ProviderDir()) to repo,
// as the artifact an oci_mirror block installs, tagged OCITag(o.Version).
// The index goes last, so a tag never names a platform whose package is
// not there yet. It returns the index's digest.
func PushOCI(ctx context.Context, o Options, archives map[string]Archive, repo name.Repository, opts ...remote.Option) (v1.Hash, error) {
	opts = append([]remote.Option{remote.WithContext(ctx)}, opts...)
	empty := static.NewLayer([]byte("{}"), ociEmptyMediaType)
	if err := remote.WriteLayer(repo, empty, opts...); err != nil {
		return v1.Hash{}, fmt.Errorf("push the empty config: %w", err)
	}
	emptyDesc, err := describe(empty, ociEmptyMediaType)
	if err != nil {
		return v1.Hash{}, err
	}
	index := v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex, ArtifactType: ociProviderArtifactType}
	for _, p := range o.Platforms {
		archive, ok := archives[p.String()]
		if !ok {
			return v1.Hash{}, fmt.Errorf("no archive for %s", p)
		}
		content, err := os.ReadFile(filepath.Join(o.ProviderDir(), archive.URL))
		if err != nil {
			return v1.Hash{}, err
		}
		layer := static.NewLayer(content, ociPackageMediaType)
		if err := remote.WriteLayer(repo, layer, opts...); err != nil {
			return v1.Hash{}, fmt.Errorf("push %s: %w", archive.URL, err)
		}
		layerDesc, err := describe(layer, ociPackageMediaType)
		if err != nil {
			return v1.Hash{}, err
		}
		layerDesc.Annotations = map[string]string{"org.opencontainers.image.title": archive.URL}
		target, err := pushManifest(repo, "", v1.Manifest{
			SchemaVersion: 2, MediaType: types.OCIManifestSchema1, ArtifactType: ociTargetArtifactType,
			Config: emptyDesc, Layers: []v1.Descriptor{layerDesc},
		}, types.OCIManifestSchema1, opts)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("push the manifest of %s: %w", p, err)
		}
		target.ArtifactType = ociTargetArtifactType
		target.Platform = &v1.Platform{OS: p.OS, Architecture: p.Arch}
		index.Manifests = append(index.Manifests, target)
	}
	indexDesc, err := pushManifest(repo, OCITag(o.Version), index, types.OCIImageIndex, opts)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("push the index of %s: %w", o.Version, err)
	}
	return indexDesc.Digest, nil
}

// describe is a layer's descriptor in a manifest.
func describe(l v1.Layer, mediaType types.MediaType) (v1.Descriptor, error) {
	digest, err := l.Digest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	size, err := l.Size()
	if err != nil {
		return v1.Descriptor{}, err
	}
	return v1.Descriptor{MediaType: mediaType, Digest: digest, Size: size}, nil
}

// rawManifest is a manifest go-containerregistry puts as it is: ours carry
// artifactType, which its image and index builders do not set.
type rawManifest struct {
	body      []byte
	mediaType types.MediaType
}

func (m rawManifest) RawManifest() ([]byte, error)        { return m.body, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return m.mediaType, nil }

// pushManifest puts manifest in repo, under tag, or by its digest alone
// when tag is empty, and returns its descriptor.
func pushManifest(repo name.Repository, tag string, manifest any, mediaType types.MediaType, opts []remote.Option) (v1.Descriptor, error) {
	body, err := json.Marshal(manifest)
	if err != nil {
		return v1.Descriptor{}, err
	}
	digest, size, err := v1.SHA256(bytes.NewReader(body))
	if err != nil {
		return v1.Descriptor{}, err
	}
	var ref name.Reference = repo.Digest(digest.String())
	if tag != "" {
		ref = repo.Tag(tag)
	}
	if err := remote.Put(ref, rawManifest{body: body, mediaType: mediaType}, opts...); err != nil {
		return v1.Descriptor{}, err
	}
	return v1.Descriptor{MediaType: mediaType, Digest: digest, Size: size}, nil
}
