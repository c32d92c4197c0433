! PnetCDF's Fortran API (nfmpi_*, in libpnetcdf.so, which calls the C
! ncmpi_* functions): every rank writes its NX ints of each of NVARS
! variables along one dimension, collectively.
! usage: pnf (writes pnf.nc)
program pnf
    implicit none
    include 'mpif.h'
    include 'pnetcdf.inc'
    integer, parameter :: NVARS = 4 ! variables, one nfmpi_put_vara_int_all each
    integer, parameter :: NX = 6    ! ints per rank and variable
    integer :: err, rank, nprocs, ncid, dimid, v, i
    integer :: varids(NVARS), buf(NX)
    integer(kind=MPI_OFFSET_KIND) :: total, start(1), count(1)
    character(len=8) :: name

    call MPI_Init(err)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, err)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, err)
    call check(nfmpi_create(MPI_COMM_WORLD, 'pnf.nc', NF_CLOBBER, MPI_INFO_NULL, ncid), 'nfmpi_create')
    total = int(NX, MPI_OFFSET_KIND) * nprocs
    call check(nfmpi_def_dim(ncid, 'x', total, dimid), 'nfmpi_def_dim')
    do v = 1, NVARS
        write (name, '(a,i0)') 'v', v
        call check(nfmpi_def_var(ncid, trim(name), NF_INT, 1, (/dimid/), varids(v)), 'nfmpi_def_var')
    end do
    call check(nfmpi_enddef(ncid), 'nfmpi_enddef')
    start(1) = int(rank, MPI_OFFSET_KIND) * NX + 1 ! Fortran counts from 1
    count(1) = NX
    do v = 1, NVARS
        do i = 1, NX
            buf(i) = v * 10000 + rank * 100 + i
        end do
        call check(nfmpi_put_vara_int_all(ncid, varids(v), start, count, buf), 'nfmpi_put_vara_int_all')
    end do
    call check(nfmpi_close(ncid), 'nfmpi_close')
    call MPI_Finalize(err)
contains
    ! The same check as tests/progs/ncsites_f.f90's, on purpose: each test program is
    ! one source file, read beside its test as the statement of what it calls.
    subroutine check(status, what)
        integer, intent(in) :: status
        character(len=*), intent(in) :: what
        integer :: ierr
        if (status /= NF_NOERR) then
            print *, what, ': ', nfmpi_strerror(status)
            call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
        end if
    end subroutine check
end program pnf
