// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// pki is the node cluster's one CA and the certificates it issues, as files under dir: the API server's serving
// certificate, client certificates (admin, kubelet, controller-manager, scheduler, the API server's kubelet
// client) and the service-account signing key.
type pki struct {
	dir    string
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	CAFile string
}

func newPKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gvisor-kubenode-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	p := &pki{dir: dir, ca: ca, caKey: key, CAFile: filepath.Join(dir, "ca.crt")}
	if err := writePEM(p.CAFile, "CERTIFICATE", der); err != nil {
		return nil, err
	}
	return p, nil
}

// keyPair is a certificate and its key, as files.
type keyPair struct{ Cert, Key string }

// issue signs a certificate for name (the file names) from tmpl's subject, SANs and usages.
func (p *pki) issue(name string, tmpl *x509.Certificate) (keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return keyPair{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return keyPair{}, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		return keyPair{}, fmt.Errorf("issuing the certificate %s: %w", name, err)
	}
	kp := keyPair{Cert: filepath.Join(p.dir, name+".crt"), Key: filepath.Join(p.dir, name+".key")}
	if err := writePEM(kp.Cert, "CERTIFICATE", der); err != nil {
		return keyPair{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return keyPair{}, err
	}
	return kp, writePEM(kp.Key, "EC PRIVATE KEY", keyDER)
}

// serving issues a TLS server certificate for the IPs and DNS names.
func (p *pki) serving(name string, ips []net.IP, dns []string) (keyPair, error) {
	return p.issue(name, &x509.Certificate{
		Subject:     pkix.Name{CommonName: name},
		IPAddresses: ips, DNSNames: dns,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

// client issues a client certificate for the user cn in the groups orgs (Kubernetes' x509 authenticator).
func (p *pki) client(name, cn string, orgs ...string) (keyPair, error) {
	return p.issue(name, &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: orgs},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// serviceAccountKey writes the key pair the API server signs service-account tokens with (the controller-manager
// signs legacy tokens with it too).
func (p *pki) serviceAccountKey() (keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return keyPair{}, err
	}
	kp := keyPair{Cert: filepath.Join(p.dir, "sa.pub"), Key: filepath.Join(p.dir, "sa.key")}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return keyPair{}, err
	}
	if err := writePEM(kp.Cert, "PUBLIC KEY", pub); err != nil {
		return keyPair{}, err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return keyPair{}, err
	}
	return kp, writePEM(kp.Key, "EC PRIVATE KEY", der)
}

// kubeconfig builds a kubeconfig for server with the client certificate kp, embedding every file so that the
// kubeconfig can be handed on as a Secret (the shoot access secret).
func (p *pki) kubeconfig(server string, kp keyPair) ([]byte, error) {
	ca, err := os.ReadFile(p.CAFile)
	if err != nil {
		return nil, err
	}
	cert, err := os.ReadFile(kp.Cert)
	if err != nil {
		return nil, err
	}
	key, err := os.ReadFile(kp.Key)
	if err != nil {
		return nil, err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["node"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos["user"] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts["node"] = &clientcmdapi.Context{Cluster: "node", AuthInfo: "user"}
	cfg.CurrentContext = "node"
	return clientcmd.Write(*cfg)
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
